"""Shared pieces every paper uses: seeding, atomic io, config, tables, claims, plots, devices."""
