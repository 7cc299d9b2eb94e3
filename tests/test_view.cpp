// `meshport view`'s route table and security checks (src/view/site.cpp), its server on a real
// socket with hostile requests (src/view/server.cpp), unit assembly (src/view/assemble.cpp) and
// thumbnail cropping (src/view/thumbnail.cpp).
#include "test_util.h"

#include "image/image.h"
#include "view/assemble.h"
#include "view/server.h"
#include "view/site.h"
#include "view/thumbnail.h"

#include <meshport/summary.h>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

namespace meshport_test_view {

using namespace meshport;
using namespace meshport::view;

namespace {

// One triangle (0,0,0) (1,0,0) (0,1,0) with a material.
Scene triangle(const std::string& name, const std::string& material = "m") {
  Scene s;
  Mesh m;
  m.name = name;
  m.material = 0;
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.triangles = {0, 1, 2};
  s.meshes.push_back(std::move(m));
  s.materials.push_back(testutil::material(material));
  return s;
}

Model model_of(Scene s) {
  Model m;
  m.summary = to_json(summarize(s, Format::Glb));
  m.scene = std::move(s);
  m.title = "triangle";
  return m;
}

Request get(const std::string& path, uint16_t port) {
  Request r;
  r.method = "GET";
  r.path = path;
  r.target = path;
  r.hosts = {"127.0.0.1:" + std::to_string(port)};
  return r;
}

constexpr uint16_t kPort = 4321;

}  // namespace

TEST(ViewSite, ServesThePageThreeJsTheModelAndItsSummary) {
  const Model model = model_of(triangle("tri"));
  const Site site = make_site(model);
  const Response page = respond(site, get("/", kPort), kPort);
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("importmap"), std::string::npos);
  EXPECT_NE(page.body.find("/three/three.module.js"), std::string::npos);
  // The page's entry (serve.js) imports the viewer module by a relative path; the page links the
  // viewer's stylesheet.
  EXPECT_NE(page.body.find("src=\"/serve.js\""), std::string::npos);
  EXPECT_NE(page.body.find("href=\"/viewer.css\""), std::string::npos);
  const Response css = respond(site, get("/viewer.css", kPort), kPort);
  EXPECT_EQ(css.status, 200);
  EXPECT_EQ(css.content_type, "text/css; charset=utf-8");
  EXPECT_NE(css.body.find(".mp-panel"), std::string::npos);
  const Response serve = respond(site, get("/serve.js", kPort), kPort);
  EXPECT_NE(serve.body.find("from './viewer.js'"), std::string::npos);
  // The web app serves viewer.js from any folder: no absolute URL in it.
  const Response viewer = respond(site, get("/viewer.js", kPort), kPort);
  EXPECT_NE(viewer.body.find("export function createViewer(options"), std::string::npos);
  for (const char* absolute : {"'/", "\"/", "`/"}) EXPECT_EQ(viewer.body.find(absolute), std::string::npos) << absolute;
  for (const char* js : {"/serve.js", "/viewer.js", "/three/three.module.js", "/three/addons/loaders/GLTFLoader.js",
                         "/three/addons/controls/OrbitControls.js", "/three/addons/utils/BufferGeometryUtils.js"}) {
    const Response r = respond(site, get(js, kPort), kPort);
    EXPECT_EQ(r.status, 200) << js;
    EXPECT_EQ(r.content_type, "text/javascript; charset=utf-8") << js;
    EXPECT_GT(r.body.size(), 1000u) << js;
  }
  const Response glb = respond(site, get("/model.glb", kPort), kPort);
  ASSERT_EQ(glb.status, 200);
  EXPECT_EQ(glb.content_type, "model/gltf-binary");
  ASSERT_GE(glb.body.size(), 12u);
  EXPECT_EQ(glb.body.substr(0, 4), "glTF");
  const Scene back = read_memory({reinterpret_cast<const uint8_t*>(glb.body.data()), glb.body.size()}, Format::Glb, "m.glb");
  ASSERT_EQ(back.meshes.size(), 1u);
  EXPECT_EQ(back.meshes[0].name, "tri");
  EXPECT_EQ(back.meshes[0].triangles.size(), 3u);
  const Response info = respond(site, get("/info.json", kPort), kPort);
  ASSERT_EQ(info.status, 200);
  const nlohmann::json j = nlohmann::json::parse(info.body);
  EXPECT_EQ(j["title"], "triangle");
  EXPECT_EQ(j["team_colour"], false);
  EXPECT_EQ(j["summary"]["meshes"].size(), 1u);
  bool beat = false;
  EXPECT_EQ(respond(site, get("/heartbeat", kPort), kPort, &beat).status, 204);
  EXPECT_TRUE(beat);
  beat = false;
  EXPECT_EQ(respond(site, get("/", kPort), kPort, &beat).status, 200);
  EXPECT_FALSE(beat);
}

TEST(ViewSite, NoPathOutsideTheRouteTable) {
  const Model model = model_of(triangle("tri"));
  const Site site = make_site(model);
  // Paths as the server decodes them (%2e%2e is ".."): none is a route, none reaches a file.
  for (const char* path : {"/../../etc/passwd", "/..", "/../", "//etc/passwd", "/etc/passwd", "/index.html",
                           "/web/index.html", "/three/../viewer.js", "/./viewer.js", "/viewer.js/", "/VIEWER.JS",
                           "/web/viewer.css", "/serve.js/", "/viewer.css/../serve.js",
                           "/three/build/three.module.js", "/model.glb/../info.json", "", "*", "/model.glb\\..\\x",
                           "/%2e%2e/etc/passwd", "/three/addons/../../../etc/passwd"}) {
    const Response r = respond(site, get(path, kPort), kPort);
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(r.body, "not found\n") << path;
  }
}

TEST(ViewSite, HostMustBeThisServer) {
  const Model model = model_of(triangle("tri"));
  const Site site = make_site(model);
  EXPECT_TRUE(host_allowed("127.0.0.1:4321", 4321));
  EXPECT_TRUE(host_allowed("localhost:4321", 4321));
  for (const char* host : {"evil.example:4321", "127.0.0.1", "localhost", "127.0.0.1:4322", "127.0.0.1:43210",
                           "localhost.evil.example:4321", "LOCALHOST:4321x", "", "[::1]:4321", "0.0.0.0:4321",
                           "127.0.0.2:4321"}) {
    EXPECT_FALSE(host_allowed(host, kPort)) << host;
    Request r = get("/", kPort);
    r.hosts = {host};
    EXPECT_EQ(respond(site, r, kPort).status, 421) << host;
  }
  Request none = get("/", kPort);
  none.hosts.clear();
  EXPECT_EQ(respond(site, none, kPort).status, 421);
  Request two = get("/", kPort);
  two.hosts.push_back("127.0.0.1:4321");
  EXPECT_EQ(respond(site, two, kPort).status, 421);
  // The heartbeat of a rebound page does not keep the server alive.
  Request beat = get("/heartbeat", kPort);
  beat.hosts = {"evil.example:4321"};
  bool alive = true;
  EXPECT_EQ(respond(site, beat, kPort, &alive).status, 421);
  EXPECT_FALSE(alive);
}

TEST(ViewSite, SizeCapsAndMethods) {
  const Model model = model_of(triangle("tri"));
  const Site site = make_site(model);
  Request r = get("/", kPort);
  r.target = "/" + std::string(kMaxTargetBytes, 'a');
  EXPECT_EQ(respond(site, r, kPort).status, 414);
  r = get("/", kPort);
  r.header_bytes = kMaxHeaderBytes + 1;
  EXPECT_EQ(respond(site, r, kPort).status, 431);
  r = get("/", kPort);
  r.header_bytes = kMaxHeaderBytes;
  EXPECT_EQ(respond(site, r, kPort).status, 200);
  r = get("/", kPort);
  r.body_bytes = 1;
  EXPECT_EQ(respond(site, r, kPort).status, 413);
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"}) {
    r = get("/", kPort);
    r.method = method;
    EXPECT_EQ(respond(site, r, kPort).status, 405) << method;
    r.path = "/nowhere";
    EXPECT_EQ(respond(site, r, kPort).status, 404) << method;
  }
  r = get("/", kPort);
  r.method = "HEAD";
  EXPECT_EQ(respond(site, r, kPort).status, 200);
}

TEST(ViewSite, ParametersAndTeamColour) {
  Scene s = triangle("tri");
  s.materials[0].team_colour_texture = "mask.png";
  const Model model = model_of(std::move(s));
  const Site site = make_site(model);
  EXPECT_TRUE(site.team_colour);
  EXPECT_EQ(nlohmann::json::parse(respond(site, get("/info.json", kPort), kPort).body)["team_colour"], true);
  Request r = get("/model.glb", kPort);
  r.query = {{"tc", "ff8000"}};
  const Response tinted = respond(site, r, kPort);
  EXPECT_EQ(tinted.status, 200);
  EXPECT_EQ(tinted.body.substr(0, 4), "glTF");
  for (const char* bad : {"", "ff800", "ff80000", "gg0000", "+f0000", "ff 000"}) {
    r.query = {{"tc", bad}};
    EXPECT_EQ(respond(site, r, kPort).status, 400) << bad;
  }
  r.query = {{"file", "/etc/passwd"}};
  EXPECT_EQ(respond(site, r, kPort).status, 400);
  r = get("/", kPort);
  r.query = {{"thumbnail", "1"}};
  EXPECT_EQ(respond(site, r, kPort).status, 200);
  r.query = {{"tc", "ff0000"}};
  EXPECT_EQ(respond(site, r, kPort).status, 400);
  EXPECT_EQ(parse_colour("A0b1C2"), (std::array<uint8_t, 3>{0xa0, 0xb1, 0xc2}));
}

// ---- the server on a real socket ---------------------------------------------------------------

namespace {

// Sends `bytes` to 127.0.0.1:port and returns everything the server answers until it closes
// (or 3 s pass). Requests say "Connection: close"; the client does not half-close (httplib drops a
// request whose client shut its side before the answer).
std::string send_raw(uint16_t port, const std::string& bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "socket failed";
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{3, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return "connect failed";
  }
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may close early on an oversize request
    sent += size_t(n);
  }
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, size_t(n));
  }
  ::close(fd);
  return out;
}

int status_of(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) return -1;
  return std::stoi(response.substr(9, 3));
}

struct Running {
  Model model = model_of(triangle("tri"));
  Site site = make_site(model);
  Server server{site};
  uint16_t port = 0;
  std::thread thread;
  explicit Running(ServeOptions o = {}) {
    port = server.bind(o);
    thread = std::thread([this] { server.run(); });
  }
  ~Running() {
    server.stop();
    if (thread.joinable()) thread.join();
  }
  std::string host() const { return "Host: 127.0.0.1:" + std::to_string(port) + "\r\n"; }
  std::string get(const std::string& target, const std::string& extra = {}) const {
    return send_raw(port, "GET " + target + " HTTP/1.1\r\n" + host() + extra + "Connection: close\r\n\r\n");
  }
};

}  // namespace

TEST(ViewServer, HostileRequestsOnARealSocket) {
  Running r;
  ASSERT_NE(r.port, 0);
  const std::string page = r.get("/");
  EXPECT_EQ(status_of(page), 200);
  EXPECT_NE(page.find("importmap"), std::string::npos);
  EXPECT_NE(page.find("X-Content-Type-Options: nosniff"), std::string::npos);
  EXPECT_EQ(status_of(r.get("/model.glb")), 200);
  // Traversal, raw and percent-encoded: 404, and never a file's content.
  for (const char* target : {"/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
                             "/..%2f..%2fetc%2fpasswd", "/three/../../../../etc/passwd", "/%252e%252e/etc/passwd",
                             "/etc/passwd", "/web/index.html", "/three/build/three.module.min.js",
                             "/viewer.js%00.html", "/.%2e/.%2e/etc/passwd"}) {
    const std::string a = r.get(target);
    EXPECT_EQ(status_of(a), 404) << target;
    EXPECT_EQ(a.find("root:"), std::string::npos) << target;
  }
  // An absolute-form target is not a route either.
  EXPECT_EQ(status_of(r.get("http://127.0.0.1/etc/passwd")), 404);
  // DNS rebinding: another name, or none.
  EXPECT_EQ(status_of(send_raw(r.port, "GET / HTTP/1.1\r\nHost: evil.example:" + std::to_string(r.port) +
                                           "\r\nConnection: close\r\n\r\n")),
            421);
  EXPECT_EQ(status_of(send_raw(r.port, "GET / HTTP/1.1\r\nConnection: close\r\n\r\n")), 421);
  EXPECT_EQ(status_of(send_raw(r.port, "GET / HTTP/1.1\r\n" + r.host() + "Host: evil.example\r\nConnection: close\r\n\r\n")),
            421);
  EXPECT_EQ(status_of(send_raw(r.port, "GET / HTTP/1.1\r\nHost: localhost:" + std::to_string(r.port) +
                                           "\r\nConnection: close\r\n\r\n")),
            200);
  // Methods: only GET (and HEAD); httplib refuses methods it does not know.
  EXPECT_EQ(status_of(send_raw(r.port, "DELETE / HTTP/1.1\r\n" + r.host() + "Connection: close\r\n\r\n")), 405);
  EXPECT_EQ(status_of(send_raw(r.port, "BREW / HTTP/1.1\r\n" + r.host() + "Connection: close\r\n\r\n")), 400);
  // Sizes: a long target, long headers, a body.
  EXPECT_EQ(status_of(r.get("/" + std::string(3000, 'a'))), 414);
  const int big_uri = status_of(r.get("/" + std::string(20000, 'a')));
  EXPECT_TRUE(big_uri == 414 || big_uri == -1) << big_uri;  // httplib's own limit may drop it
  const int headers = status_of(r.get("/", "X-Pad: " + std::string(9000, 'b') + "\r\n"));
  EXPECT_TRUE(headers == 431 || headers == 400 || headers == -1) << headers;
  std::string many;
  for (int i = 0; i < 100; ++i) many += "X-Pad" + std::to_string(i) + ": " + std::string(100, 'c') + "\r\n";
  EXPECT_EQ(status_of(r.get("/", many)), 431);
  // A body announced as 1 MB is refused before any of it is read (none is sent: unread bytes would
  // make the closing server reset the connection before the answer is read).
  const int posted = status_of(send_raw(r.port, "POST / HTTP/1.1\r\n" + r.host() + "Content-Length: " +
                                                    std::to_string(1 << 20) + "\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(posted, 413);
  const int put = status_of(send_raw(r.port, "PUT /model.glb HTTP/1.1\r\n" + r.host() +
                                                 "Content-Length: 0\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(put, 405);
  // Still serving after all of that.
  EXPECT_EQ(status_of(r.get("/info.json")), 200);
}

TEST(ViewServer, ListensOnLoopbackOnly) {
  Running r;
  // /proc/net/tcp lists listening sockets (state 0A) as hex address:port; 0100007F is 127.0.0.1.
  std::ifstream tcp("/proc/net/tcp");
  std::string line, found;
  char port_hex[8];
  std::snprintf(port_hex, sizeof port_hex, "%04X", r.port);
  while (std::getline(tcp, line))
    if (line.find(std::string(":") + port_hex + " ") != std::string::npos && line.find(" 0A ") != std::string::npos &&
        line.find(":" + std::string(port_hex) + " 00000000:0000") != std::string::npos)
      found = line;
  ASSERT_FALSE(found.empty()) << "no listening socket on port " << r.port;
  EXPECT_NE(found.find("0100007F:" + std::string(port_hex)), std::string::npos) << found;
  std::ifstream tcp6("/proc/net/tcp6");
  while (std::getline(tcp6, line)) EXPECT_EQ(line.find(std::string(":") + port_hex + " 0000"), std::string::npos) << line;
}

TEST(ViewServer, StopsWhenNoPagePolls) {
  ServeOptions o;
  o.idle_seconds = 0.4;
  o.first_seconds = 0.4;
  const auto start = std::chrono::steady_clock::now();
  Model model = model_of(triangle("tri"));
  Site site = make_site(model);
  Server server(site);
  const uint16_t port = server.bind(o);
  std::thread t([&] { server.run(); });
  // Heartbeats for 1.2 s keep it running; then it stops by itself.
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(status_of(send_raw(port, "GET /heartbeat HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                                           "\r\nConnection: close\r\n\r\n")),
              204);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  t.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(seconds, 1.2);
  EXPECT_LT(seconds, 5.0);
  EXPECT_STREQ(server.stop_reason(), "idle");
  EXPECT_EQ(send_raw(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n\r\n"), "connect failed");
}

TEST(ViewServer, StopsAtTheTimeoutEvenWithHeartbeats) {
  ServeOptions o;
  o.timeout_seconds = 0.6;
  Model model = model_of(triangle("tri"));
  Site site = make_site(model);
  Server server(site);
  const uint16_t port = server.bind(o);
  const auto start = std::chrono::steady_clock::now();
  std::thread t([&] { server.run(); });
  std::thread beats([&] {
    for (int i = 0; i < 10; ++i) {
      send_raw(port, "GET /heartbeat HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\nConnection: close\r\n\r\n");
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  t.join();
  beats.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(seconds, 0.55);
  EXPECT_LT(seconds, 3.0);
  EXPECT_STREQ(server.stop_reason(), "timeout");
}

// ---- assembling units -----------------------------------------------------------------------------

namespace {

Scene body_with_connectors(std::vector<std::array<float, 3>> at) {
  Scene s = triangle("body_level1", "page");
  for (size_t i = 0; i < at.size(); ++i) {
    Attachment a;
    a.name = "body_level1_connector" + std::to_string(i + 1);
    a.mesh = 0;
    a.transform.translation = at[i];
    s.attachments.push_back(a);
  }
  return s;
}

std::vector<float> positions(const Scene& s, size_t mesh) { return s.meshes[mesh].find(Attribute::Position)->data; }

}  // namespace

TEST(ViewAssemble, WeaponsGoToTheBodyConnectorsPropulsionStaysAtTheOrigin) {
  std::vector<Part> parts;
  parts.push_back({"body.pie", body_with_connectors({{1, 2, 3}, {4, 5, 6}})});
  parts.push_back({"prop.pie", triangle("prop_level1", "page")});
  parts.push_back({"gun.pie", triangle("gun_level1", "weapons")});
  const Scene unit = assemble(parts);
  ASSERT_EQ(unit.meshes.size(), 3u);
  EXPECT_EQ(positions(unit, 0), (std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(positions(unit, 1), (std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(positions(unit, 2), (std::vector<float>{1, 2, 3, 2, 2, 3, 1, 3, 3}));
  // Body and propulsion share their (equal) material; the weapon's is its own.
  ASSERT_EQ(unit.materials.size(), 2u);
  EXPECT_EQ(unit.meshes[0].material, 0);
  EXPECT_EQ(unit.meshes[1].material, 0);
  EXPECT_EQ(unit.meshes[2].material, 1);
  EXPECT_EQ(unit.attachments.size(), 2u);
  EXPECT_FALSE(unit.pie.has_value());

  AssembleOptions vtol;
  vtol.vtol = true;
  const Scene flying = assemble(parts, vtol);
  EXPECT_EQ(positions(flying, 2), (std::vector<float>{4, 5, 6, 5, 5, 6, 4, 6, 6}));
  // Two weapons: connectors 1 and 2.
  parts.push_back({"gun2.pie", triangle("gun2_level1", "weapons")});
  const Scene twin = assemble(parts);
  EXPECT_EQ(positions(twin, 3), (std::vector<float>{4, 5, 6, 5, 5, 6, 4, 6, 6}));
  // The same weapon file twice: its second mesh's name gets the part number.
  parts.back().scene.meshes[0].name = "gun_level1";
  const Scene same = assemble(parts);
  EXPECT_EQ(same.meshes[2].name, "gun_level1");
  EXPECT_EQ(same.meshes[3].name, "gun_level1_part4");
  try {
    assemble(parts, vtol);
    FAIL() << "three connectors needed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("body.pie"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the body has 2 connectors, but 2 weapons need connectors 2..3"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(assemble({Part{"body.pie", triangle("b")}}), Error);
}

TEST(ViewAssemble, AnimatedWeaponKeepsItsSkinningAndAnimationsCoverAllJoints) {
  Scene gun = triangle("gun_level1");
  Joint j;
  j.name = "gun_level1";
  gun.joints.push_back(j);
  gun.meshes[0].streams.push_back(testutil::float_stream(Attribute::BlendIndices, 1, {0, 0, 0}));
  gun.meshes[0].streams.push_back(testutil::float_stream(Attribute::BlendWeights, 1, {1, 1, 1}));
  Animation a;
  a.name = "recoil";
  a.framerate = 10;
  a.channels = 1;
  a.poses = {testutil::trs({0, 0, 0}), testutil::trs({0, 0, -1})};
  gun.animations.push_back(a);
  Scene prop = triangle("prop_level1");
  Joint pj;
  pj.name = "prop_joint";
  prop.joints.push_back(pj);
  std::vector<Part> parts;
  parts.push_back({"body.pie", body_with_connectors({{0, 10, 0}})});
  parts.push_back({"prop.pie", prop});
  parts.push_back({"gun.pie", gun});
  const Scene unit = assemble(parts);
  ASSERT_EQ(unit.joints.size(), 2u);
  EXPECT_EQ(unit.joints[1].name, "gun_level1");
  EXPECT_EQ(unit.joints[1].rest.translation, (std::array<float, 3>{0, 10, 0}));
  EXPECT_EQ(unit.meshes[2].find(Attribute::BlendIndices)->data, (std::vector<float>{1, 1, 1}));
  ASSERT_EQ(unit.animations.size(), 1u);
  const Animation& r = unit.animations[0];
  EXPECT_EQ(r.channels, 2u);
  ASSERT_EQ(r.poses.size(), 4u);
  EXPECT_EQ(r.poses[0], unit.joints[0].rest);  // the propulsion's joint at rest
  EXPECT_EQ(r.poses[1].translation, (std::array<float, 3>{0, 10, 0}));
  EXPECT_EQ(r.poses[3].translation, (std::array<float, 3>{0, 10, -1}));
}

// ---- thumbnails ------------------------------------------------------------------------------

TEST(ViewThumbnail, CropsTheTopLeftAndRefusesEmptyPictures) {
  image::Pixels shot;
  shot.width = 300;
  shot.height = 260;
  shot.rgba.assign(size_t(300) * 260 * 4, 0);
  auto put = [&](uint32_t x, uint32_t y, uint8_t v) {
    uint8_t* p = &shot.rgba[(size_t(y) * 300 + x) * 4];
    p[0] = v, p[1] = 0, p[2] = 0, p[3] = 255;
  };
  put(10, 20, 200);   // inside the 128 x 128 thumbnail
  put(200, 200, 99);  // outside: cut away
  const std::vector<uint8_t> png = image::encode_png(shot);
  const std::vector<uint8_t> cropped = crop_thumbnail(png, 128, "t.png");
  const image::DecodedImage back = image::decode_image(cropped, "t.png", image::ImageLimits{});
  ASSERT_TRUE(back.error.empty()) << back.error;
  ASSERT_EQ(back.pixels.width, 128u);
  ASSERT_EQ(back.pixels.height, 128u);
  size_t drawn = 0;
  for (size_t i = 3; i < back.pixels.rgba.size(); i += 4) drawn += back.pixels.rgba[i] != 0;
  EXPECT_EQ(drawn, 1u);
  EXPECT_EQ(back.pixels.rgba[(size_t(20) * 128 + 10) * 4], 200);
  try {
    crop_thumbnail(png, 261, "t.png");
    FAIL() << "a thumbnail larger than the screenshot";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("t.png: error: the page's picture is 300x260, smaller than 261x261"),
              std::string::npos)
        << e.what();
  }
  std::fill(shot.rgba.begin(), shot.rgba.end(), 0);
  put(200, 200, 99);
  try {
    crop_thumbnail(image::encode_png(shot), 128, "t.png");
    FAIL() << "an empty thumbnail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the thumbnail is empty"), std::string::npos) << e.what();
  }
  EXPECT_THROW(crop_thumbnail(std::vector<uint8_t>{1, 2, 3}, 16, "t.png"), Error);
}

}  // namespace meshport_test_view
