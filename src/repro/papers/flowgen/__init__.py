"""FlowGen: a controllable flowchart synthesizer for parsing and QA."""
