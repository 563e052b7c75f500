"""JUnit XML, as CI systems read it: one <testcase> per cipher x target x schedule x mode.

write_junit(path, results, seconds)   # results: session.Result list
<testsuites tests="12" failures="1" skipped="2" errors="0" time="41.2">
  <testsuite name="speck128_128" ...>
    <testcase classname="speck128_128.c-s390x" name="speck128_128_c_sliced_v32 ctr" time="0.31">
      <failure message="CTR encrypt of 517 bytes differs from block 3">reproducer, located value</failure>
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from cipherspec.errors import UsageError


def _counts(results) -> dict[str, str]:
    return {
        "tests": str(len(results)),
        "failures": str(sum(r.status == "failed" for r in results)),
        "errors": "0",
        "skipped": str(sum(r.status == "skipped" for r in results)),
        "time": f"{sum(r.seconds for r in results):.3f}",
    }


def junit_tree(results, seconds: float) -> ET.ElementTree:
    root = ET.Element("testsuites", dict(_counts(results), name="cipherspec test", time=f"{seconds:.3f}"))
    for cipher in dict.fromkeys(r.cipher for r in results):
        mine = [r for r in results if r.cipher == cipher]
        suite = ET.SubElement(root, "testsuite", dict(_counts(mine), name=cipher))
        for r in mine:
            case = ET.SubElement(
                suite,
                "testcase",
                {"classname": f"{r.cipher}.{r.label}", "name": f"{r.schedule} {r.mode}", "time": f"{r.seconds:.3f}"},
            )
            if r.status == "failed":
                ET.SubElement(case, "failure", {"message": r.message}).text = r.details or r.message
            elif r.status == "skipped":
                ET.SubElement(case, "skipped", {"message": r.message})
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit(path: str, results, seconds: float) -> None:
    try:
        junit_tree(results, seconds).write(Path(path), encoding="utf-8", xml_declaration=True)
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror}") from None
