"""RL with verifiable rewards on small LMs, shared by every paper that trains reasoning
policies: tasks (Countdown, math) with their data and scorers, the policy (scratch char/byte
models or hub models), sampling, SFT warm-up, the RL loop with pluggable objectives, and
evaluation (avg@n, pass@k, distinct correct answers). A paper brings its objectives."""
