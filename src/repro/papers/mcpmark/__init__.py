"""MCPMark: a benchmark for stress-testing realistic and comprehensive MCP use."""
