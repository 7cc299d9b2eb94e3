// The format table as JSON (formats --json) and as the markdown table of docs/formats.md.
#include <meshport/formats.h>
#include <meshport/summary.h>

#include <string>
#include <vector>

namespace meshport {

nlohmann::json formats_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const FormatInfo& f : formats()) {
    nlohmann::json holds = nlohmann::json::object();
    for (const Capability& c : capability_list(f.holds)) {
      if (!c.is_count)
        holds[std::string(c.name)] = c.value;
      else if (c.count == kAnyNumber)
        holds[std::string(c.name)] = nullptr;  // any number
      else
        holds[std::string(c.name)] = c.count;
    }
    nlohmann::json extensions = nlohmann::json::array();
    for (auto e : f.extensions) extensions.push_back(std::string(e));
    out.push_back({{"name", std::string(f.name)},
                   {"description", std::string(f.description)},
                   {"extensions", extensions},
                   {"can_read", f.can_read},
                   {"can_write", f.can_write},
                   {"family", std::string(f.family)},
                   {"holds", holds}});
  }
  return out;
}

namespace {

// One format of each family, in table order.
std::vector<const FormatInfo*> family_columns() {
  std::vector<const FormatInfo*> columns;
  for (const FormatInfo& f : formats()) {
    bool seen = false;
    for (const FormatInfo* c : columns) seen = seen || c->family == f.family;
    if (!seen) columns.push_back(&f);
  }
  return columns;
}

}  // namespace

std::string capabilities_markdown() {
  const std::vector<const FormatInfo*> columns = family_columns();
  std::string out = "| Holds |", rule = "|---|";
  for (const FormatInfo* f : columns) out += " " + std::string(f->family) + " |", rule += "---|";
  out += "\n" + rule + "\n";
  const std::vector<Capability> rows = capability_list(FormatCapabilities{});
  for (size_t r = 0; r < rows.size(); ++r) {
    out += "| " + std::string(rows[r].meaning) + " (`" + std::string(rows[r].name) + "`) |";
    for (const FormatInfo* f : columns) out += " " + capability_text(capability_list(f->holds)[r]) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace meshport
