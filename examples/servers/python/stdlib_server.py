#!/usr/bin/env python3
"""A stdio MCP server in Python with only the standard library (no SDK).

It exists to show that a server from outside the Node world runs unchanged in Ferry's sandbox, and
to let the sandbox tests probe the file system and the network from a second language. Tools:

  whoami        uid, gid, cwd, the workspace it finds, TMPDIR
  fs_op         one file operation (read, list, write, stat) at any path; reports the errno name
  connect       opens a TCP connection; reports whether it worked
  write_stats   writes /tmp/{username}/stats.json (v2.1 §5.1) and returns it as a path artifact

JSON-RPC 2.0, one message per line (the MCP stdio transport).

  python3 examples/servers/python/stdlib_server.py
"""
import errno
import json
import os
import socket
import sys

PROTOCOL_VERSION = "2025-06-18"


def attempt(action):
    try:
        data = action()
        return {"ok": True} if data is None else {"ok": True, "data": data}
    except OSError as error:
        return {"ok": False, "error": errno.errorcode.get(error.errno, str(error))}


def fs_op(op, path, content=""):
    if op == "read":
        def read():
            with open(path, "r", encoding="utf-8", errors="replace") as handle:
                return handle.read(4096)
        return attempt(read)
    if op == "list":
        return attempt(lambda: sorted(os.listdir(path)))
    if op == "write":
        def write():
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(content)
        return attempt(write)
    if op == "stat":
        return attempt(lambda: {"uid": os.stat(path).st_uid, "mode": oct(os.stat(path).st_mode)})
    return {"ok": False, "error": f"unknown op {op}"}


def connect(host, port):
    def run():
        with socket.create_connection((host, port), timeout=3):
            return None
    try:
        return attempt(run)
    except socket.timeout:
        return {"ok": False, "error": "ETIMEDOUT"}


def workspace(username):
    return os.path.join("/tmp", username)


def write_stats(username, content):
    path = os.path.join(workspace(username), "stats.json")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(content)
    return {
        "results": {"written": path},
        "artifacts": [{"name": "stats.json", "path": path, "mime": "application/json"}],
    }


USERNAME = {"type": "string", "description": "Injected by the host: the authenticated user"}
TOOLS = [
    {"name": "whoami", "description": "Who and where the server runs.",
     "inputSchema": {"type": "object", "properties": {"username": USERNAME}}},
    {"name": "fs_op", "description": "One file operation at any path; reports the errno name.",
     "inputSchema": {"type": "object", "required": ["op", "path"], "properties": {
         "op": {"type": "string", "enum": ["read", "list", "write", "stat"]},
         "path": {"type": "string"}, "content": {"type": "string"}}}},
    {"name": "connect", "description": "Opens a TCP connection and reports whether it worked.",
     "inputSchema": {"type": "object", "required": ["host", "port"], "properties": {
         "host": {"type": "string"}, "port": {"type": "integer"}}}},
    {"name": "write_stats", "description": "Writes /tmp/{username}/stats.json and returns it.",
     "inputSchema": {"type": "object", "required": ["content"], "properties": {
         "content": {"type": "string"}, "username": USERNAME}}},
]


def call(name, args):
    if name == "whoami":
        user = args.get("username", "")
        return {"results": {
            "uid": os.getuid(), "gid": os.getgid(), "cwd": os.getcwd(), "python": sys.executable,
            "workspace": workspace(user), "workspace_exists": os.path.isdir(workspace(user)),
            "tmpdir": os.environ.get("TMPDIR"),
        }}
    if name == "fs_op":
        return {"results": fs_op(args["op"], args["path"], args.get("content", ""))}
    if name == "connect":
        return {"results": connect(args["host"], int(args["port"]))}
    if name == "write_stats":
        return write_stats(args["username"], args["content"])
    raise KeyError(name)


def answer(message):
    method = message.get("method")
    params = message.get("params") or {}
    if method == "initialize":
        return {"protocolVersion": params.get("protocolVersion", PROTOCOL_VERSION),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "ferry-example-python-stdlib", "version": "0.1.0"}}
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        try:
            payload = call(params.get("name"), params.get("arguments") or {})
        except KeyError as missing:
            return {"isError": True, "content": [{"type": "text", "text": f"missing {missing}"}]}
        return {"content": [{"type": "text", "text": json.dumps(payload)}], "structuredContent": payload}
    raise LookupError(method)


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        message = json.loads(line)
        if "id" not in message:
            continue  # a notification
        try:
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": answer(message)}
        except LookupError as unknown:
            reply = {"jsonrpc": "2.0", "id": message["id"],
                     "error": {"code": -32601, "message": f"Method not found: {unknown}"}}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
