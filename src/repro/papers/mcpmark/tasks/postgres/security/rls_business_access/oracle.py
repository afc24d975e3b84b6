"""rls_business_access's scripted solution: helper functions and indexes, then RLS and the
policies."""

HELPERS = """
CREATE FUNCTION app_user() RETURNS uuid LANGUAGE sql STABLE AS
$$ SELECT NULLIF(current_setting('app.current_user_id', true), '')::uuid $$;
CREATE FUNCTION is_channel_owner(p_channel uuid, p_user uuid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS
$$ SELECT EXISTS (SELECT 1 FROM channels WHERE id = p_channel AND owner_id = p_user) $$;
CREATE FUNCTION is_channel_moderator(p_channel uuid, p_user uuid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS
$$ SELECT EXISTS (SELECT 1 FROM channel_moderators
                  WHERE channel_id = p_channel AND user_id = p_user) $$;
CREATE FUNCTION can_moderate_channel(p_channel uuid, p_user uuid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS
$$ SELECT is_channel_owner(p_channel, p_user) OR is_channel_moderator(p_channel, p_user) $$;
CREATE FUNCTION can_see_channel(p_channel uuid, p_user uuid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS
$$ SELECT EXISTS (SELECT 1 FROM channels WHERE id = p_channel AND is_public)
          OR can_moderate_channel(p_channel, p_user) $$;
CREATE INDEX ON channels (owner_id);
CREATE INDEX ON channel_moderators (user_id);
CREATE INDEX ON posts (channel_id);
CREATE INDEX ON posts (author_id);
CREATE INDEX ON comments (post_id);
CREATE INDEX ON comments (author_id);
"""

POLICIES = """
ALTER TABLE users ENABLE ROW LEVEL SECURITY;
ALTER TABLE channels ENABLE ROW LEVEL SECURITY;
ALTER TABLE channel_moderators ENABLE ROW LEVEL SECURITY;
ALTER TABLE posts ENABLE ROW LEVEL SECURITY;
ALTER TABLE comments ENABLE ROW LEVEL SECURITY;

CREATE POLICY users_read ON users FOR SELECT USING (true);
CREATE POLICY users_edit ON users FOR UPDATE USING (id = app_user()) WITH CHECK (id = app_user());
CREATE POLICY users_remove ON users FOR DELETE USING (id = app_user());

CREATE POLICY channels_read ON channels FOR SELECT
    USING (is_public OR can_moderate_channel(id, app_user()));
CREATE POLICY channels_create ON channels FOR INSERT WITH CHECK (owner_id = app_user());
CREATE POLICY channels_edit ON channels FOR UPDATE
    USING (owner_id = app_user()) WITH CHECK (owner_id = app_user());
CREATE POLICY channels_remove ON channels FOR DELETE USING (owner_id = app_user());

CREATE POLICY mods_read ON channel_moderators FOR SELECT USING (true);
CREATE POLICY mods_add ON channel_moderators FOR INSERT
    WITH CHECK (is_channel_owner(channel_id, app_user()));
CREATE POLICY mods_remove ON channel_moderators FOR DELETE
    USING (is_channel_owner(channel_id, app_user()) OR user_id = app_user());

CREATE POLICY posts_read ON posts FOR SELECT USING (can_see_channel(channel_id, app_user()));
CREATE POLICY posts_create ON posts FOR INSERT
    WITH CHECK (author_id = app_user() AND can_see_channel(channel_id, app_user()));
CREATE POLICY posts_edit ON posts FOR UPDATE
    USING (author_id = app_user() OR can_moderate_channel(channel_id, app_user()));
CREATE POLICY posts_remove ON posts FOR DELETE
    USING (author_id = app_user() OR can_moderate_channel(channel_id, app_user()));

CREATE POLICY comments_read ON comments FOR SELECT
    USING (EXISTS (SELECT 1 FROM posts p WHERE p.id = post_id));
CREATE POLICY comments_create ON comments FOR INSERT
    WITH CHECK (author_id = app_user() AND EXISTS (SELECT 1 FROM posts p WHERE p.id = post_id));
CREATE POLICY comments_edit ON comments FOR UPDATE
    USING (author_id = app_user() OR EXISTS (
        SELECT 1 FROM posts p WHERE p.id = post_id
        AND (p.author_id = app_user() OR can_moderate_channel(p.channel_id, app_user()))));
CREATE POLICY comments_remove ON comments FOR DELETE
    USING (author_id = app_user() OR EXISTS (
        SELECT 1 FROM posts p WHERE p.id = post_id
        AND (p.author_id = app_user() OR can_moderate_channel(p.channel_id, app_user()))));
"""


def solve(view: dict) -> list[dict]:
    return [{"name": "execute_sql", "arguments": {"sql": HELPERS}},
            {"name": "execute_sql", "arguments": {"sql": POLICIES}}]
