"""Vector environments for the relval PPO runs: classic control and Atari (ALE).

Both kinds use gymnasium's default NEXT_STEP autoreset: the step after a done returns the reset
observation with reward 0 and no real transition. The learner (ppo.py) masks those pseudo-steps
out of every loss and of GAE / R-GAE; the upside is that the observation returned with a done is
the true final observation, so a truncated episode can be bootstrapped from it directly.

Atari follows cleanrl's ppo_atari preprocessing via ale_py's AtariVectorEnv: 30 no-op resets,
frameskip 4 with max-pooling, 84x84 grayscale, 4-frame stack, FIRE on reset, no sticky actions.
Rewards come back raw (the learner clips them) so reported returns are full-game scores, and the
game is NOT reset on life loss: AtariVectorEnv's own `episodic_life` resets the whole game on a
life loss, which is not cleanrl's EpisodicLife. The learner instead treats a drop in
`info["lives"]` as a terminal for learning while the game goes on.
"""

from __future__ import annotations

import re

import gymnasium as gym


def is_atari(env_id: str) -> bool:
    return env_id.startswith("ALE/")


def ale_game_name(env_id: str) -> str:
    """'ALE/VideoPinball-v5' -> 'video_pinball' (ale_py's ROM name)."""
    name = env_id.split("/", 1)[1].split("-v", 1)[0]
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def make_env(
    env_id: str,
    n_envs: int,
    seed: int,
    atari_threads: int = 1,
    repeat_action_probability: float = 0.0,
    max_frames_per_episode: int = 108_000,
) -> gym.vector.VectorEnv:
    """A NEXT_STEP-autoreset vector env of `n_envs` copies (seeded on the first reset).

    `seed` is not applied here: the caller passes it to `reset(seed=seed)` (gymnasium seeds the
    sub-envs seed, seed+1, ...). The Atari-only arguments are ALE's (threads, sticky actions,
    frame cap per episode).
    """
    if is_atari(env_id):
        from ale_py.vector_env import AtariVectorEnv

        return AtariVectorEnv(
            ale_game_name(env_id),
            n_envs,
            num_threads=int(atari_threads),
            repeat_action_probability=float(repeat_action_probability),
            max_num_frames_per_episode=int(max_frames_per_episode),
            autoreset_mode=gym.vector.AutoresetMode.NEXT_STEP,
            noop_max=30,
            frameskip=4,
            stack_num=4,
            img_height=84,
            img_width=84,
            grayscale=True,
            episodic_life=False,
            reward_clipping=False,
            use_fire_reset=True,
        )

    def thunk() -> gym.Env:
        return gym.wrappers.RecordEpisodeStatistics(gym.make(env_id))

    return gym.vector.SyncVectorEnv(
        [thunk for _ in range(n_envs)], autoreset_mode=gym.vector.AutoresetMode.NEXT_STEP
    )
