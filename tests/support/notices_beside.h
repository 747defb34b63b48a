// Turn notifications beside a test's hubs, wired as the server wires them:
// one part for the process, which asks the seats that tokens hold of the hub
// holding each table (`hub_at(shard)`), writes and reads subscriptions
// through a writer (by default one that writes at once on `store`), and runs
// its work through `post` (by default at once). The hubs given to attach()
// tell it what their turn-based tables' actions mean; its pushes are kept in
// `pushes`.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "server/stores/store_writer.h"
#include "server/tables/hub.h"
#include "server/tables/hub_detail.h"

namespace makruk::testing_helpers {

class NoticesBeside {
 public:
  using Post = std::function<void(std::function<void()>)>;
  NoticesBeside(server::Store& store, std::function<server::Hub&(size_t shard)> hub_at,
                std::function<int64_t()> now, size_t shards = 1,
                Post post = [](std::function<void()> f) { f(); })
      : writer_(store),
        notices(server::Hub::notices_tables(shards,
                                            [hub_at](size_t shard, std::function<void(server::Hub&)> work) {
                                              work(hub_at(shard));
                                            }),
                std::move(now), std::move(post)) {
    notices.set_writer(&writer_);
    notices.set_push("PUBLICKEY", [this](server::webpush::Delivery d) { pushes.push_back(std::move(d)); }, false);
  }
  // Its subscriptions written and read through another writer (one whose
  // answers come to the part's executor, as the server's view does).
  void write_through(server::StoreWriter& writer) { notices.set_writer(&writer); }
  void attach(server::Hub& hub) { hub.set_notices(&notices); }

  // The requests, answered before they return (with a writer that writes at
  // once and work run at once).
  server::Answer subscribe(const std::string& body, const std::string& ip) {
    return server::detail::answered_at_once([&](auto respond) { notices.subscribe(body, ip, std::move(respond)); });
  }
  server::Answer unsubscribe(const std::string& body) {
    return server::detail::answered_at_once([&](auto respond) { notices.unsubscribe(body, std::move(respond)); });
  }
  server::Answer my_games(const std::string& body, const std::string& ip) {
    return server::detail::answered_at_once([&](auto respond) { notices.my_games(body, ip, std::move(respond)); });
  }

 private:
  server::StoreWriter writer_;

 public:
  server::TurnNotices notices;
  std::vector<server::webpush::Delivery> pushes;
};

}  // namespace makruk::testing_helpers
