/**
 * The most bytes of a metadata value (and of its error) kept, as the reference's agent keeps of a
 * script's output. The agent cuts there and the daemon cuts again for an agent that did not.
 */
export const AGENT_METADATA_VALUE_LIMIT = 10 * 1024;
