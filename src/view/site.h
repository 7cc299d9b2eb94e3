// `meshport view`: what the viewer's server answers, as a pure function of a request (no sockets),
// so that its routes and its security checks are unit-tested (docs/viewer.md).
#pragma once

#include "view/model.h"

#include <meshport/meshport.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace meshport::view {

// Request limits: more is refused before any route is looked at.
inline constexpr size_t kMaxTargetBytes = 2048;  // path and query
inline constexpr size_t kMaxHeaderBytes = 8192;  // all header names and values
inline constexpr size_t kMaxBodyBytes = 0;       // the viewer takes no request body

struct Response {
  int status = 200;
  std::string content_type;
  std::string body;
};

// What the server needs to know of one request. `path` is the decoded path (no query), `query`
// the decoded query parameters, `header_bytes` the sum of header names and values, `hosts` every
// Host header given.
struct Request {
  std::string method;
  std::string path;
  std::string target;  // as sent, for its length
  std::vector<std::pair<std::string, std::string>> query;
  std::vector<std::string> hosts;
  size_t header_bytes = 0;
  size_t body_bytes = 0;
};

// The routes: the embedded files, "/model.glb" (converted once, here; with ?tc=RRGGBB converted
// again with that team colour baked in), "/info.json", "/heartbeat".
struct Site {
  std::map<std::string, Response, std::less<>> routes;
  const Model* model = nullptr;  // for team colour conversions; outlives the Site
  bool team_colour = false;      // a material has a team colour mask
};

// Converts the model to .glb (warnings go to `diags`) and builds the route table.
Site make_site(const Model& model, Diagnostics* diags = nullptr);
// The page alone: the embedded files and /heartbeat, no model (`thumbnail`'s pages, `?pool`,
// are given their models by the DevTools protocol).
Site make_page_site();

// The host names a request may give for a server on 127.0.0.1:port (DNS rebinding defence: a
// page of another origin resolving its name to 127.0.0.1 sends its own name).
bool host_allowed(std::string_view host, uint16_t port);

// The answer to one request (every request gets one); `*heartbeat` is set to true when it was an
// accepted GET /heartbeat, which the server counts as a sign that a page is open.
Response respond(const Site& site, const Request& request, uint16_t port, bool* heartbeat = nullptr);

// "RRGGBB" (hex, either case) as a colour, or nullopt.
std::optional<std::array<uint8_t, 3>> parse_colour(std::string_view hex);

}  // namespace meshport::view
