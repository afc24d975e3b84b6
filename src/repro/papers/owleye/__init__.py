"""OWLEYE: zero-shot graph anomaly detection across domains."""
