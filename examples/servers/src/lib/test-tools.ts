/**
 * The argument that adds a server's test-only tools (test/ferry.test-config.json passes it): the
 * slow server's hang and crash, the tasks server's scenarios. In lib/, not in a server file: a
 * server file runs itself when bundled into another's build.
 */
export const TEST_TOOLS_FLAG = '--test-tools';
