import os

from hypothesis import HealthCheck, settings

# FASTCLIP_HYPOTHESIS_EXAMPLES scales the property tests for a long run, e.g.
# FASTCLIP_HYPOTHESIS_EXAMPLES=50000 python -m pytest tests/test_properties.py
settings.register_profile(
    "fastclip",
    max_examples=int(os.environ.get("FASTCLIP_HYPOTHESIS_EXAMPLES", "1500")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
settings.load_profile("fastclip")
