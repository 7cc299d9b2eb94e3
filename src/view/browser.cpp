// Headless Chromium over the DevTools protocol on a pipe (browser.h).
#include "view/browser.h"

#include "core/utf8_path.h"
#include "formats/shared/base64.h"

#include <meshport/diagnostics.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <filesystem>

namespace meshport::view {

namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

double left(Clock::time_point deadline) {
  return std::max(0.0, std::chrono::duration<double>(deadline - Clock::now()).count());
}

// Chromium's command line: headless, WebGL through SwiftShader (no GPU needed), nothing fetched
// from the network, pages in the background not throttled (several draw at once).
std::vector<std::string> chromium_args(const std::string& chromium, const std::string& profile) {
  std::vector<std::string> argv = {chromium,
                                   "--headless",
                                   "--remote-debugging-pipe",
                                   "--use-angle=swiftshader",
                                   "--enable-unsafe-swiftshader",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--disable-extensions",
                                   "--disable-background-timer-throttling",
                                   "--disable-backgrounding-occluded-windows",
                                   "--disable-renderer-backgrounding",
                                   "--no-first-run",
                                   "--no-default-browser-check",
                                   "--mute-audio",
                                   "--hide-scrollbars",
                                   "--user-data-dir=" + profile,
                                   "about:blank"};
  if (os::superuser()) argv.insert(argv.begin() + 1, "--no-sandbox");  // Chromium refuses root otherwise
  return argv;
}

}  // namespace

Browser::Browser(const std::string& chromium, double start_seconds) : chromium_(chromium) {
  profile_ = os::create_temporary_folder(path_utf8(std::filesystem::temp_directory_path() / "meshport-thumbnail-"));
  if (profile_.empty()) fail("meshport-thumbnail-XXXXXX", "cannot create a temporary folder for chromium's profile");
  // Its own process group: Ctrl-C on the terminal reaches meshport only, which then finishes the
  // pictures being drawn, closes Chromium and removes its profile.
  const int error = os::start_piped(chromium_args(chromium, profile_), child_);
  if (error != 0) {
    std::error_code ec;
    std::filesystem::remove_all(utf8_path(profile_), ec);
    profile_.clear();
    // ENOSYS (Windows, no start_piped()) does not reach here: thumbnails() checks
    // os::can_start_piped() before it makes a Browser.
    fail(chromium, std::string("cannot start a process: ") + std::strerror(error));
  }
  reader_ = std::thread([this] { read_loop(); });
  try {
    call("Browser.getVersion", nlohmann::json::object(), "", start_seconds, chromium);
  } catch (const Error&) {
    stop();  // the destructor does not run for an unfinished constructor
    fail(chromium, fmt::format("chromium did not start (is Debian's chromium installed? --chromium PATH or "
                               "MESHPORT_CHROMIUM name another)"));
  }
}

Browser::~Browser() { stop(); }

void Browser::stop() {
  if (child_.id > 0) {
    try {
      call("Browser.close", nlohmann::json::object(), "", 5, chromium_);
    } catch (const Error&) {
    }
    os::end_child(child_, 5);
  }
  if (child_.stream >= 0) os::shutdown(child_.stream);
  if (reader_.joinable()) reader_.join();
  if (child_.stream >= 0) os::close(child_.stream);
  child_.stream = -1;
  if (!profile_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(utf8_path(profile_), ec);
    profile_.clear();
  }
}

void Browser::read_loop() {
  std::string buffer;
  char chunk[65536];
  for (;;) {
    const long long n = os::read(child_.stream, chunk, sizeof chunk);
    if (n <= 0) break;
    buffer.append(chunk, size_t(n));
    size_t start = 0;
    for (size_t end; (end = buffer.find('\0', start)) != std::string::npos; start = end + 1) {
      nlohmann::json m = nlohmann::json::parse(buffer.begin() + ptrdiff_t(start), buffer.begin() + ptrdiff_t(end),
                                               nullptr, false);
      if (!m.is_object()) continue;
      std::lock_guard<std::mutex> g(lock_);
      if (m.contains("id") && m["id"].is_number_integer()) {
        const int id = m["id"].get<int>();
        if (!abandoned_.erase(id)) answers_[id] = std::move(m);
      }
      else if (m.contains("method") && m["method"].is_string())
        events_.emplace(m.value("sessionId", std::string()), m["method"].get<std::string>());
      changed_.notify_all();
    }
    buffer.erase(0, start);
  }
  std::lock_guard<std::mutex> g(lock_);
  gone_ = true;
  changed_.notify_all();
}

void Browser::send(const std::string& text) {
  std::lock_guard<std::mutex> g(write_lock_);
  size_t done = 0;
  while (done < text.size()) {
    const long long n = os::send(child_.stream, text.data() + done, text.size() - done);
    if (n <= 0) return;  // the reader sees the browser gone
    done += size_t(n);
  }
}

nlohmann::json Browser::call(const std::string& method, const nlohmann::json& params, const std::string& session,
                             double seconds, const std::string& name) {
  int id;
  {
    std::lock_guard<std::mutex> g(lock_);
    if (gone_) fail(name, fmt::format("chromium ({}) has exited", chromium_));
    id = next_id_++;
  }
  nlohmann::json m = {{"id", id}, {"method", method}, {"params", params}};
  if (!session.empty()) m["sessionId"] = session;
  std::string text = m.dump();
  text.push_back('\0');
  send(text);
  std::unique_lock<std::mutex> g(lock_);
  const auto deadline = after(seconds);
  while (!answers_.count(id)) {
    if (gone_) fail(name, fmt::format("chromium ({}) has exited", chromium_));
    if (changed_.wait_until(g, deadline) == std::cv_status::timeout && !answers_.count(id)) {
      abandoned_.insert(id);  // its answer, when it comes, is dropped
      fail(name, fmt::format("chromium did not answer {} within {} s", method, seconds));
    }
  }
  nlohmann::json answer = std::move(answers_[id]);
  answers_.erase(id);
  if (answer.contains("error"))
    fail(name, fmt::format("chromium: {}: {}", method, answer["error"].value("message", std::string("error"))));
  return answer.value("result", nlohmann::json::object());
}

bool Browser::wait_event(const std::string& session, const std::string& method, double seconds,
                         const std::string& name) {
  std::unique_lock<std::mutex> g(lock_);
  const auto key = std::make_pair(session, method);
  const auto deadline = after(seconds);
  while (!events_.count(key)) {
    if (gone_) fail(name, fmt::format("chromium ({}) has exited", chromium_));
    if (changed_.wait_until(g, deadline) == std::cv_status::timeout) return events_.count(key) > 0;
  }
  return true;
}

PoolPage::PoolPage(Browser& browser, const std::string& url, const std::string& name, double seconds)
    : browser_(browser) {
  const auto deadline = after(seconds);
  try {
    target_ = browser.take_first_page(name);
    if (target_.empty())
      target_ = browser.call("Target.createTarget", {{"url", "about:blank"}}, "", left(deadline), name).value("targetId", "");
    session_ = browser.call("Target.attachToTarget", {{"targetId", target_}, {"flatten", true}}, "", left(deadline), name)
                   .value("sessionId", "");
    browser.call("Page.enable", nlohmann::json::object(), session_, left(deadline), name);
    const nlohmann::json nav = browser.call("Page.navigate", {{"url", url}}, session_, left(deadline), name);
    if (nav.contains("errorText")) fail(name, "the viewer's page did not load: " + nav.value("errorText", ""));
    // The page's modules have run (window.meshport exists) once its DOM content is loaded.
    if (!browser.wait_event(session_, "Page.domContentEventFired", left(deadline), name))
      fail(name, fmt::format("the viewer's page did not load within {} s", seconds));
    evaluate("window.meshport.drawn.then(() => true)", name, left(deadline));
  } catch (const Error&) {
    close();
    if (left(deadline) > 0) throw;
    fail(name, fmt::format("the viewer's page did not load within {} s (--timeout)", seconds));
  }
}

PoolPage::~PoolPage() { close(); }

void PoolPage::close() {
  if (target_.empty()) return;
  try {
    browser_.call("Target.closeTarget", {{"targetId", target_}}, "", 10, target_);
  } catch (const Error&) {  // the browser has gone: nothing to close
  }
  target_.clear();
}

nlohmann::json PoolPage::evaluate(const std::string& expression, const std::string& name, double seconds) {
  const nlohmann::json r = browser_.call(
      "Runtime.evaluate", {{"expression", expression}, {"awaitPromise", true}, {"returnByValue", true}}, session_,
      seconds, name);
  if (r.contains("exceptionDetails")) {
    const nlohmann::json& x = r["exceptionDetails"];
    std::string text = x.contains("exception") ? x["exception"].value("description", "") : "";
    if (text.empty()) text = x.value("text", "an error");
    fail(name, "the viewer's page failed: " + text.substr(0, text.find('\n')));
  }
  return r.contains("result") ? r["result"].value("value", nlohmann::json()) : nlohmann::json();
}

std::string Browser::take_first_page(const std::string& name) {
  {
    std::lock_guard<std::mutex> g(lock_);
    if (first_taken_) return {};
    first_taken_ = true;
  }
  const nlohmann::json r = call("Target.getTargets", nlohmann::json::object(), "", 10, name);
  for (const nlohmann::json& t : r.value("targetInfos", nlohmann::json::array()))
    if (t.value("type", "") == "page" && t.value("url", "") == "about:blank" && !t.value("attached", false))
      return t.value("targetId", "");
  return {};
}

std::vector<uint8_t> PoolPage::draw(std::string_view glb, const std::string& name, double seconds) {
  const auto deadline = after(seconds);
  const auto* p = reinterpret_cast<const uint8_t*>(glb.data());
  const std::string expression = "window.meshport.draw('" + gltf::base64_encode(p, glb.size()) + "')";
  nlohmann::json value;
  try {
    value = evaluate(expression, name, left(deadline));
  } catch (const Error&) {
    if (left(deadline) > 0) throw;
    fail(name, fmt::format("the viewer's page drew nothing within {} s (--timeout)", seconds));
  }
  const std::string data = value.is_string() ? value.get<std::string>() : "";
  const std::string_view prefix = "data:image/png;base64,";
  if (data.compare(0, prefix.size(), prefix) != 0) fail(name, "the viewer's page gave no PNG");
  std::vector<uint8_t> png;
  if (gltf::base64_decode(std::string_view(data).substr(prefix.size()), png) != std::string_view::npos)
    fail(name, "the viewer's page gave a PNG that is not base64");
  return png;
}

}  // namespace meshport::view
