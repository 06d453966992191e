/** The bootstrap packet's schema version (apart from the zod schema, so the packet's builders load no zod). */
export const PACKET_SCHEMA_VERSION = 1 as const;
