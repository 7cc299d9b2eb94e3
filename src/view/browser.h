// `meshport thumbnail`'s browser: one headless Chromium for a whole run, driven over the DevTools
// protocol on a pipe (`--remote-debugging-pipe`: JSON messages ended by a NUL byte on file
// descriptors 3 and 4), with several pages at once (docs/viewer.md, "Thumbnails").
#pragma once

#include "core/os.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace meshport::view {

class Browser {
 public:
  // Starts `chromium` (headless, SwiftShader WebGL, a fresh temporary profile removed at the end)
  // and waits up to `start_seconds` for it to answer; throws meshport::Error naming `chromium`
  // when it does not, or where the system cannot start it so (Windows, for now: os.h).
  explicit Browser(const std::string& chromium, double start_seconds = 60);
  ~Browser();
  Browser(const Browser&) = delete;
  Browser& operator=(const Browser&) = delete;

  // Sends a command (to a page's `session`, or to the browser when empty) and waits up to
  // `seconds` for its answer: the "result" object. Throws meshport::Error (named `name`) with the
  // protocol's message, when the time is up, or when the browser has gone.
  nlohmann::json call(const std::string& method, const nlohmann::json& params, const std::string& session,
                      double seconds, const std::string& name);
  // Waits up to `seconds` for event `method` on `session` (one received since the session was
  // attached counts); false when the time ran out. Throws when the browser has gone.
  bool wait_event(const std::string& session, const std::string& method, double seconds, const std::string& name);
  // The page Chromium opened at its start (about:blank), once: the first PoolPage uses it instead
  // of starting another renderer. Empty afterwards, or when there is none.
  std::string take_first_page(const std::string& name);

 private:
  void read_loop();
  void stop();  // closes Chromium (killed when it does not exit) and removes its profile
  void send(const std::string& text);

  std::string chromium_;
  std::string profile_;
  os::PipedChild child_;  // Chromium; its stream is our end of the pipe (its fds 3 and 4 the other)
  std::thread reader_;
  std::mutex lock_;
  std::mutex write_lock_;
  std::condition_variable changed_;
  int next_id_ = 1;
  std::map<int, nlohmann::json> answers_;
  std::set<int> abandoned_;  // calls whose time ran out
  std::set<std::pair<std::string, std::string>> events_;  // (session, method)
  bool gone_ = false;
  bool first_taken_ = false;
};

// A page of the viewer in pool mode (`/?thumbnail=SIZE&pool`, docs/viewer.md): opened once,
// then given models one after the other as .glb bytes over the protocol; the page says when it
// has drawn one (window.meshport.draw resolves), no fixed wait anywhere.
class PoolPage {
 public:
  // Opens `url` in a new page and waits up to `seconds` for the viewer's modules to run; errors
  // are named `name` (the model the page was opened for).
  PoolPage(Browser& browser, const std::string& url, const std::string& name, double seconds);
  ~PoolPage();  // closes the page
  PoolPage(const PoolPage&) = delete;
  PoolPage& operator=(const PoolPage&) = delete;

  // Draws the .glb `glb` and returns the canvas as PNG bytes. `name` (the model) names errors:
  // the page's own (a .glb three.js cannot read), or nothing drawn within `seconds`. After an
  // error the page may be in any state: open a new one.
  std::vector<uint8_t> draw(std::string_view glb, const std::string& name, double seconds);

 private:
  nlohmann::json evaluate(const std::string& expression, const std::string& name, double seconds);
  void close();

  Browser& browser_;
  std::string target_, session_;
};

}  // namespace meshport::view
