export * from './node/netaclaw_tool_policy';
