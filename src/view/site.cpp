// The viewer's route table and request checks (site.h, docs/viewer.md).
#include "view/site.h"

#include "view/embedded.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace meshport::view {

namespace {

Response text(int status, std::string body) {
  Response r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body) + "\n";
  return r;
}

}  // namespace

std::optional<std::array<uint8_t, 3>> parse_colour(std::string_view hex) {
  if (hex.size() != 6) return std::nullopt;
  std::array<uint8_t, 3> c{};
  for (size_t i = 0; i < 3; ++i) {
    const char* first = hex.data() + 2 * i;
    if (!std::isxdigit(static_cast<unsigned char>(first[0])) || !std::isxdigit(static_cast<unsigned char>(first[1])))
      return std::nullopt;
    auto [end, ec] = std::from_chars(first, first + 2, c[i], 16);
    if (ec != std::errc() || end != first + 2) return std::nullopt;
  }
  return c;
}

Site make_page_site() {
  Site site;
  for (const EmbeddedFile& f : embedded_files()) {
    Response r;
    r.content_type = std::string(f.content_type);
    r.body = std::string(f.data);
    site.routes.emplace(std::string(f.route), std::move(r));
  }
  Response beat;
  beat.status = 204;
  site.routes.emplace("/heartbeat", std::move(beat));
  return site;
}

Site make_site(const Model& model, Diagnostics* diags) {
  Site site = make_page_site();
  site.model = &model;
  site.team_colour = has_team_colour(model);
  Response glb_route;
  glb_route.content_type = "model/gltf-binary";
  glb_route.body = model_glb(model, std::nullopt, diags);
  site.routes.emplace("/model.glb", std::move(glb_route));
  Response info;
  info.content_type = "application/json";
  info.body = page_info(model).dump();
  site.routes.emplace("/info.json", std::move(info));
  return site;
}

bool host_allowed(std::string_view host, uint16_t port) {
  const std::string p = ":" + std::to_string(port);
  return host == "127.0.0.1" + p || host == "localhost" + p;
}

Response respond(const Site& site, const Request& request, uint16_t port, bool* heartbeat) {
  if (heartbeat) *heartbeat = false;
  // Sizes first: nothing of an oversize request is looked at.
  if (request.target.size() > kMaxTargetBytes) return text(414, "request target too long");
  if (request.header_bytes > kMaxHeaderBytes) return text(431, "request headers too large");
  if (request.body_bytes > kMaxBodyBytes) return text(413, "request body not accepted");
  // Exactly one Host, naming this server (a rebound DNS name is refused).
  if (request.hosts.size() != 1 || !host_allowed(request.hosts[0], port))
    return text(421, "wrong Host: this server answers to 127.0.0.1:" + std::to_string(port));
  const auto route = site.routes.find(request.path);
  if (route == site.routes.end()) return text(404, "not found");
  if (request.method != "GET" && request.method != "HEAD") return text(405, "only GET");
  if (request.path == "/heartbeat" && heartbeat) *heartbeat = true;
  // The parameters: /?thumbnail and /?pool (read by the page), /model.glb?tc=RRGGBB (the team
  // colour to bake, for models with a mask). Any other is refused.
  for (const auto& [key, value] : request.query) {
    if (request.path == "/" && (key == "thumbnail" || key == "pool")) continue;
    if (request.path != "/model.glb" || key != "tc") return text(400, "unknown parameter");
    const auto colour = parse_colour(value);
    if (!colour) return text(400, "tc must be six hexadecimal digits RRGGBB");
    if (!site.team_colour || !site.model) return route->second;
    Response r = route->second;
    try {
      r.body = model_glb(*site.model, colour, nullptr);
    } catch (const std::exception& e) {
      return text(500, e.what());
    }
    return r;
  }
  return route->second;
}

}  // namespace meshport::view
