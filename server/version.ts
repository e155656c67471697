/** The service's one version, from package.json: /health, the OpenAPI document and MCP's serverInfo all say this. */
import packageJson from "../package.json" with { type: "json" };

export const VERSION: string = packageJson.version;
