// A WebSocket client as the hub sees it, recording what it is sent.
#pragma once

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "server/tables/hub.h"

namespace makruk::testing_helpers {

struct FakeClient : server::Client {
  std::vector<boost::json::object> sent;
  bool closed = false;
  void send(std::shared_ptr<const std::string> text) override {
    sent.push_back(boost::json::parse(*text).as_object());
  }
  void close() override { closed = true; }
  // The last message of a type.
  boost::json::object last(const std::string& t) const {
    for (auto it = sent.rbegin(); it != sent.rend(); ++it)
      if (it->at("t").as_string() == t) return *it;
    return {};
  }
  // How many messages of a type were sent.
  size_t count(const std::string& t) const {
    size_t n = 0;
    for (const auto& m : sent) n += m.at("t").as_string() == t;
    return n;
  }
};

inline boost::json::object body(const server::Answer& r) { return boost::json::parse(r.body).as_object(); }

// What the hub answered a message of `c`'s: the first ack or error sent after it
// (an empty object while none has come).
inline boost::json::object answer_to(server::Hub& hub, const std::shared_ptr<FakeClient>& c, const std::string& msg) {
  const size_t before = c->sent.size();
  hub.on_message(c, msg);
  for (size_t i = before; i < c->sent.size(); ++i) {
    const auto& t = c->sent[i].at("t").as_string();
    if (t == "ack" || t == "error") return c->sent[i];
  }
  return {};
}

}  // namespace makruk::testing_helpers
