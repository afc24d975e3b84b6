"""papers-repro: reproductions of ICLR 2026 papers as Snakemake DAGs."""

import os as _os

if _os.environ.get("REPRO_FORBID_READS"):  # the test suite's guard (repro.core.guard)
    from repro.core.guard import ENV as _ENV
    from repro.core.guard import install as _install

    _install(_os.environ[_ENV])
