"""LFST (issue 25): groundwork; the paper is not registered yet."""
