"""PS and PM: perceptual separation and match measures for source separation (MAPSS)."""
