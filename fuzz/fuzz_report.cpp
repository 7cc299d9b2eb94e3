// libFuzzer target for the batch report reader (batch.h parse_report, used by
// `meshport merge-reports`): any input gives a report or throws meshport::Error; a report read
// back from its own JSON is the same report, and merging it with itself is refused.
#include <meshport/batch.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace meshport;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  BatchResult r;
  try {
    r = parse_report(text, "fuzz.json");
  } catch (const Error&) {
    return 0;
  }
  const std::string json = report_json(r);
  const std::string again = report_json(parse_report(json, "again.json"));
  if (again != json) {
    std::fprintf(stderr, "meshport fuzz finding: a report read back differs\n%s\n---\n%s\n", json.c_str(), again.c_str());
    std::abort();
  }
  if (!r.items.empty()) {
    try {
      merge_reports({r, r}, {"a.json", "b.json"});
      std::fprintf(stderr, "meshport fuzz finding: a report merged with itself was accepted\n");
      std::abort();
    } catch (const Error&) {
    }
  }
  return 0;
}
