/** `gwrun mcp`: gwrun's operations as tools for agents (Model Context Protocol). */
export type { McpOptions } from "./context.js";
export { type HttpServing, serveHttp } from "./http.js";
export { gwrunServer, serveStdio } from "./server.js";
