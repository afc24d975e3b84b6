"""OWLEYE (issue 24): zero-shot graph anomaly detection. Work in progress: graphs.py."""
