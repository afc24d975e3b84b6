"""PS / PM (issue 26): groundwork; the paper is not registered yet."""
