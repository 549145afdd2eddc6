import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The Node files that start an `npm start` of their own: each spends half a
 * minute or more in one long chain of starts and waits, so they take the two
 * workers first, while the shared server starts beside them, rather than
 * being reached late and leaving the other worker idle at the end of the
 * Node files.
 */
const OWN_SERVERS = ["test/node/local-server.test.ts", "test/node/under-load.test.ts"];

const startsOwnServer = (spec: TestSpecification) =>
  OWN_SERVERS.some((file) => spec.moduleId.endsWith(file));

/**
 * Vitest's order (one project after the other, the longest or largest file
 * first), except that the files starting their own server come first.
 */
export default class ServersFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter(startsOwnServer), ...sorted.filter((spec) => !startsOwnServer(spec))];
  }
}
