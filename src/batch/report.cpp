// The JSON report of a batch, reading it back and merging the reports of shards (batch.h,
// docs/batch.md "Report").
#include "batch/plan.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

using nlohmann::json;

namespace meshport {

namespace {

constexpr BatchStatus kStatuses[] = {BatchStatus::Done, BatchStatus::Warned, BatchStatus::Failed, BatchStatus::Skipped};

json diagnostic_json(const Diagnostic& d) {
  const char* severity = d.severity == Severity::Error ? "error" : d.severity == Severity::Note ? "note" : "warning";
  json j{{"severity", severity}, {"file", d.file}, {"message", d.message},
         {"text", d.to_string()}};
  if (d.line) j["line"] = d.line, j["column"] = d.column;
  if (d.offset >= 0) j["offset"] = d.offset;
  return j;
}

json item_json(BatchTask task, const BatchItem& i) {
  json j{{"input", i.input},
         {"relative", i.relative},
         {"status", status_name(task, i.status)},
         {"input_bytes", i.input_bytes},
         {"milliseconds", std::round(i.milliseconds * 1000.0) / 1000.0}};
  if (!i.animations.empty()) j["animations"] = i.animations;
  if (!i.output.empty()) j["output"] = i.output, j["output_bytes"] = i.output_bytes;
  if (!i.note.empty()) j["note"] = i.note;
  json diags = json::array();
  for (const Diagnostic& d : i.diagnostics) diags.push_back(diagnostic_json(d));
  j["diagnostics"] = diags;
  if (i.dropped) j["diagnostics_dropped"] = i.dropped;
  j["counts"] = {{"meshes", i.meshes},       {"vertices", i.vertices}, {"triangles", i.triangles},
                 {"materials", i.materials}, {"joints", i.joints},     {"animations", i.animations_count}};
  return j;
}

// Readers of a report's parts: a wrong type or a missing member is an error naming `file`.
struct Reader {
  const std::string& file;

  [[noreturn]] void bad(const std::string& where, const std::string& what) const {
    fail(file, fmt::format("not a meshport batch report: {} {}", where, what));
  }
  const json& member(const json& o, const char* key, const std::string& where) const {
    if (!o.is_object() || !o.contains(key)) bad(where, fmt::format("has no \"{}\"", key));
    return o[key];
  }
  std::string text(const json& o, const char* key, const std::string& where, bool required = true) const {
    if (!required && (!o.is_object() || !o.contains(key))) return {};
    const json& v = member(o, key, where);
    if (!v.is_string()) bad(where + "." + key, "is not a string");
    return v.get<std::string>();
  }
  template <class T>
  T number(const json& o, const char* key, const std::string& where, bool required = true) const {
    if (!required && (!o.is_object() || !o.contains(key))) return T{};
    const json& v = member(o, key, where);
    if (!v.is_number() || (std::is_unsigned_v<T> && !v.is_number_unsigned()))
      bad(where + "." + key, std::is_unsigned_v<T> ? "is not a whole number >= 0" : "is not a number");
    return v.get<T>();
  }

  Diagnostic diagnostic(const json& d, const std::string& where) const {
    Diagnostic out;
    const std::string sev = text(d, "severity", where);
    if (sev != "error" && sev != "warning" && sev != "note")
      bad(where + ".severity", "is neither \"error\", \"warning\" nor \"note\"");
    out.severity = sev == "error" ? Severity::Error : sev == "note" ? Severity::Note : Severity::Warning;
    out.file = text(d, "file", where);
    out.message = text(d, "message", where);
    out.line = number<uint32_t>(d, "line", where, false);
    out.column = number<uint32_t>(d, "column", where, false);
    out.offset = d.contains("offset") ? number<int64_t>(d, "offset", where) : -1;
    return out;
  }

  BatchItem item(BatchTask task, const json& j, const std::string& where) const {
    BatchItem i;
    i.input = text(j, "input", where);
    i.relative = text(j, "relative", where);
    const std::string status = text(j, "status", where);
    auto s = std::find_if(std::begin(kStatuses), std::end(kStatuses),
                          [&](BatchStatus st) { return status_name(task, st) == status; });
    if (s == std::end(kStatuses)) bad(where + ".status", fmt::format("\"{}\" is not a status", status));
    i.status = *s;
    i.output = text(j, "output", where, false);
    i.note = text(j, "note", where, false);
    if (j.contains("animations")) {
      const json& a = j["animations"];
      if (!a.is_array()) bad(where + ".animations", "is not an array");
      for (size_t k = 0; k < a.size(); ++k) {
        if (!a[k].is_string()) bad(fmt::format("{}.animations[{}]", where, k), "is not a string");
        i.animations.push_back(a[k].get<std::string>());
      }
    }
    const json& diags = member(j, "diagnostics", where);
    if (!diags.is_array()) bad(where + ".diagnostics", "is not an array");
    for (size_t k = 0; k < diags.size(); ++k)
      i.diagnostics.push_back(diagnostic(diags[k], fmt::format("{}.diagnostics[{}]", where, k)));
    i.dropped = number<size_t>(j, "diagnostics_dropped", where, false);
    i.input_bytes = number<uint64_t>(j, "input_bytes", where);
    i.output_bytes = number<uint64_t>(j, "output_bytes", where, false);
    i.milliseconds = number<double>(j, "milliseconds", where);
    const json& c = member(j, "counts", where);
    const std::string cw = where + ".counts";
    i.meshes = number<size_t>(c, "meshes", cw);
    i.vertices = number<size_t>(c, "vertices", cw);
    i.triangles = number<size_t>(c, "triangles", cw);
    i.materials = number<size_t>(c, "materials", cw);
    i.joints = number<size_t>(c, "joints", cw);
    i.animations_count = number<size_t>(c, "animations", cw);
    return i;
  }
};

}  // namespace

namespace batch_detail {

void tally(BatchResult& r) {
  r.done = r.warned = r.failed = r.skipped = 0;
  for (const BatchItem& i : r.items) {
    r.done += i.status == BatchStatus::Done;
    r.warned += i.status == BatchStatus::Warned;
    r.failed += i.status == BatchStatus::Failed;
    r.skipped += i.status == BatchStatus::Skipped;
  }
}

}  // namespace batch_detail

std::string report_item_json(BatchTask task, const BatchItem& item) { return item_json(task, item).dump(); }

std::string report_json(const BatchResult& r) {
  json summary{{"files", r.items.size()}, {"seconds", std::round(r.seconds * 1000.0) / 1000.0}, {"cancelled", r.cancelled}};
  summary[std::string(status_name(r.task, BatchStatus::Done))] = r.done;
  summary["warned"] = r.warned;
  summary[std::string(status_name(r.task, BatchStatus::Failed))] = r.failed;
  summary["skipped"] = r.skipped;
  json items = json::array();
  for (const BatchItem& i : r.items) items.push_back(item_json(r.task, i));
  json j{{"meshport", MESHPORT_VERSION},
         {"task", r.task == BatchTask::Convert ? "convert" : "validate"},
         {"shard", {{"index", r.shard.index}, {"count", r.shard.count}}},
         {"summary", summary},
         {"items", items}};
  if (!r.error.empty()) j["error"] = r.error;
  return j.dump(2) + "\n";
}

BatchResult parse_report(std::string_view text, const std::string& file) {
  const json j = json::parse(text, nullptr, false);
  const Reader rd{file};
  if (j.is_discarded()) rd.bad("the file", "is not JSON");
  BatchResult r;
  const std::string task = rd.text(j, "task", "the report");
  if (task != "convert" && task != "validate") rd.bad("task", "is neither \"convert\" nor \"validate\"");
  r.task = task == "convert" ? BatchTask::Convert : BatchTask::Validate;
  const json& shard = rd.member(j, "shard", "the report");
  r.shard = {rd.number<uint32_t>(shard, "index", "shard"), rd.number<uint32_t>(shard, "count", "shard")};
  if (r.shard.count == 0 || r.shard.index >= r.shard.count) rd.bad("shard", "is not a shard K of N (K < N)");
  const json& summary = rd.member(j, "summary", "the report");
  r.seconds = rd.number<double>(summary, "seconds", "summary");
  const json& cancelled = rd.member(summary, "cancelled", "summary");
  if (!cancelled.is_boolean()) rd.bad("summary.cancelled", "is not true or false");
  r.cancelled = cancelled.get<bool>();
  const json& items = rd.member(j, "items", "the report");
  if (!items.is_array()) rd.bad("items", "is not an array");
  for (size_t k = 0; k < items.size(); ++k) r.items.push_back(rd.item(r.task, items[k], fmt::format("items[{}]", k)));
  r.error = rd.text(j, "error", "the report", false);
  batch_detail::tally(r);
  return r;
}

BatchResult merge_reports(const std::vector<BatchResult>& reports, const std::vector<std::string>& files) {
  BatchResult out;
  if (reports.empty()) fail("merge-reports", "no report to merge");
  out.task = reports[0].task;
  std::map<std::string, size_t> owner;  // input -> report
  std::set<uint32_t> shards;
  for (size_t r = 0; r < reports.size(); ++r) {
    const BatchResult& b = reports[r];
    const std::string& file = r < files.size() ? files[r] : std::string("report");
    if (b.task != out.task) fail(file, fmt::format("a {} report cannot be merged with a {} report", b.task == BatchTask::Convert ? "convert" : "validate", out.task == BatchTask::Convert ? "convert" : "validate"));
    if (b.shard.count != reports[0].shard.count)
      fail(file, fmt::format("is shard {} of {}, but {} is of {}", b.shard.index, b.shard.count,
                             files.empty() ? "the first" : files[0], reports[0].shard.count));
    if (!shards.insert(b.shard.index).second && b.shard.count > 1)
      fail(file, fmt::format("shard {} of {} is given twice", b.shard.index, b.shard.count));
    for (const BatchItem& i : b.items) {
      auto [it, fresh] = owner.emplace(i.input, r);
      if (!fresh)
        fail(file, fmt::format("{} is also in {}: the reports overlap (shards of different trees or options?)", i.input,
                               it->second < files.size() ? files[it->second] : "another report"));
      out.items.push_back(i);
    }
    out.seconds = std::max(out.seconds, b.seconds);
    out.cancelled |= b.cancelled;
    if (out.error.empty()) out.error = b.error;
  }
  const uint32_t count = reports[0].shard.count;
  if (count > 1 && shards.size() != count) {
    std::string missing;
    for (uint32_t k = 0; k < count; ++k)
      if (!shards.count(k)) missing += (missing.empty() ? "" : ", ") + std::to_string(k);
    fail("merge-reports", fmt::format("shards {} of {} are missing", missing, count));
  }
  std::stable_sort(out.items.begin(), out.items.end(), [](const BatchItem& a, const BatchItem& b) {
    return std::tie(a.relative, a.input) < std::tie(b.relative, b.input);
  });
  batch_detail::tally(out);
  return out;
}

}  // namespace meshport
