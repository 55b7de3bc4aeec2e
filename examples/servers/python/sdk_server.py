"""A stdio MCP server on the official Python SDK (`pip install mcp`, 2.x: MCPServer).

The sandbox tests run it from a virtualenv they create under /tmp, with this script elsewhere:
the shape of a Python server installed from PyPI. Tools: `whoami` and `write_stats` (writes
/tmp/{username}/stats.json, v2.1 §5.1, and returns it as a path artifact).

  <venv>/bin/python examples/servers/python/sdk_server.py
"""
import os
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("ferry-example-python-sdk")


@server.tool()
def whoami(username: str = "") -> dict:
    """Who and where the server runs."""
    return {"results": {"uid": os.getuid(), "python": sys.executable, "prefix": sys.prefix,
                        "workspace_exists": os.path.isdir(f"/tmp/{username}")}}


@server.tool()
def write_stats(content: str, username: str = "") -> dict:
    """Writes /tmp/{username}/stats.json and returns it as an artifact."""
    path = f"/tmp/{username}/stats.json"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(content)
    return {"results": {"written": path},
            "artifacts": [{"name": "stats.json", "path": path, "mime": "application/json"}]}


if __name__ == "__main__":
    server.run()
