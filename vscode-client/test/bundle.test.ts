import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type BundleManifest,
  VERSION_PROBE_CODE,
  bundleInterpreters,
  describeMinors,
  fitBundle,
  parseManifest,
  parseVersionOutput,
  platformMismatch,
} from "../src/common/bundle";

const manifest: BundleManifest = {
  common: "common",
  pythons: { "3.11": "cp311", "3.12": "cp312", "3.13": "cp313" },
  node: { platform: "linux", arch: "x64" },
  verified: ["3.11", "3.12", "3.13"],
};
const cpython = (minor: number, freeThreaded = false) => ({ implementation: "cpython", major: 3, minor, freeThreaded });

describe("parseManifest", () => {
  it("reads what scripts/bundle-python.mjs writes", () => {
    const m = parseManifest(
      JSON.stringify({
        format: 2,
        common: "common",
        pythons: { "3.11": "cp311", "3.14": "cp314", "3.13": "cp313", "3.12": "cp312" },
        node: { platform: "linux", arch: "x64" },
        verified: ["3.11", "3.12", "3.13", "9.9"],
        pure: { pygls: "2.1.1" },
      }),
    );
    assert.ok(typeof m !== "string");
    assert.deepEqual(m.pythons, { "3.11": "cp311", "3.14": "cp314", "3.13": "cp313", "3.12": "cp312" });
    assert.deepEqual(m.verified, ["3.11", "3.12", "3.13"]);
    assert.deepEqual(m.node, { platform: "linux", arch: "x64" });
    assert.equal(describeMinors(m), "3.11–3.14");
  });

  it("explains what is wrong instead of throwing", () => {
    assert.match(parseManifest("{") as string, /not JSON/);
    assert.match(parseManifest("[]") as string, /no "common"/);
    assert.match(parseManifest("null") as string, /not a JSON object/);
    // The old single-interpreter manifest ({python, platform}) has no parts: rebuild.
    assert.match(parseManifest('{"python": "3.11", "platform": "linux-x86_64"}') as string, /rebuild/);
    assert.match(parseManifest('{"common": "common", "pythons": {}}') as string, /no Python version/);
    // Directories must stay inside bundled/libs.
    assert.match(parseManifest('{"common": "../x", "pythons": {"3.11": "cp311"}}') as string, /no "common"/);
    assert.match(parseManifest('{"common": "common", "pythons": {"3.11": "/etc", "x": "cp3"}}') as string, /no Python version/);
  });
});

describe("fitBundle", () => {
  for (const minor of [11, 12, 13]) {
    it(`runs CPython 3.${minor} with common + cp3${minor}`, () => {
      const fit = fitBundle(manifest, "/ext/bundled/libs", cpython(minor), ":");
      assert.deepEqual(fit, { ok: true, minor: `3.${minor}`, pythonPath: `/ext/bundled/libs/common:/ext/bundled/libs/cp3${minor}` });
    });
  }

  it("refuses versions without compiled parts, saying which are supported", () => {
    assert.deepEqual(fitBundle(manifest, "/l", cpython(10)), {
      ok: false,
      reason: "Python 3.10: too old, the bundled server needs Python 3.11–3.13",
    });
    assert.deepEqual(fitBundle(manifest, "/l", cpython(15)), {
      ok: false,
      reason: "Python 3.15: the bundled server needs Python 3.11–3.13",
    });
    assert.deepEqual(fitBundle(manifest, "/l", { implementation: "cpython", major: 2, minor: 7, freeThreaded: false }), {
      ok: false,
      reason: "Python 2.7: too old, the bundled server needs Python 3.11–3.13",
    });
  });

  it("refuses other implementations and free-threaded builds (the compiled parts are for standard CPython)", () => {
    const pypy = fitBundle(manifest, "/l", { implementation: "pypy", major: 3, minor: 11, freeThreaded: false });
    assert.deepEqual(pypy, { ok: false, reason: "pypy (Python) 3.11: the bundled server needs CPython 3.11–3.13" });
    const ft = fitBundle(manifest, "/l", cpython(13, true));
    assert.equal(ft.ok, false);
    assert.match((ft as { reason: string }).reason, /^Python 3\.13 free-threaded: .*standard/);
  });

  it("names a non-contiguous set of versions one by one", () => {
    const gaps = { ...manifest, pythons: { "3.11": "cp311", "3.13": "cp313" } };
    assert.equal(describeMinors(gaps), "3.11, 3.13");
    assert.match((fitBundle(gaps, "/l", cpython(12)) as { reason: string }).reason, /needs Python 3\.11, 3\.13$/);
  });
});

describe("parseVersionOutput", () => {
  it("reads the version probe's line", () => {
    assert.deepEqual(parseVersionOutput("cpython 3 12 0\n"), cpython(12));
    assert.deepEqual(parseVersionOutput("cpython 3 13 1"), cpython(13, true));
    assert.equal(parseVersionOutput("pypy 3 11 0")?.implementation, "pypy");
    assert.equal(parseVersionOutput("Python was not found; run without arguments to install from the Microsoft Store"), undefined);
    assert.equal(parseVersionOutput(""), undefined);
  });

  it("asks for implementation, version and free-threading only (fast: no site-packages import)", () => {
    assert.match(VERSION_PROBE_CODE, /sys\.implementation\.name/);
    assert.match(VERSION_PROBE_CODE, /Py_GIL_DISABLED/);
  });
});

describe("bundleInterpreters", () => {
  it("tries python3.X for the bundled minors, newest first, then python3 and python", () => {
    assert.deepEqual(
      bundleInterpreters(manifest, "linux").map((i) => [i.command, ...i.args].join(" ")),
      ["python3.13", "python3.12", "python3.11", "python3", "python"],
    );
  });

  it("tries minors tested at build time before untested ones", () => {
    const m = { ...manifest, pythons: { ...manifest.pythons, "3.14": "cp314" } };
    assert.deepEqual(
      bundleInterpreters(m, "darwin").map((i) => i.command),
      ["python3.13", "python3.12", "python3.11", "python3.14", "python3", "python"],
    );
  });

  it("uses the py launcher on Windows", () => {
    assert.deepEqual(
      bundleInterpreters(manifest, "win32").map((i) => [i.command, ...i.args].join(" ")),
      ["py -3.13", "py -3.12", "py -3.11", "py -3", "python"],
    );
  });
});

describe("platformMismatch", () => {
  it("accepts the build platform and an old manifest without one", () => {
    assert.equal(platformMismatch(manifest, "linux", "x64"), undefined);
    assert.equal(platformMismatch({ ...manifest, node: undefined }, "win32", "arm64"), undefined);
  });
  it("explains a bundle built elsewhere", () => {
    assert.match(platformMismatch(manifest, "darwin", "arm64") ?? "", /built for linux-x64, this is darwin-arm64/);
  });
});
