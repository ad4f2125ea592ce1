"""Clients of other OpenStack services' compute side (Nova)."""
