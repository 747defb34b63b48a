// The bus between the hubs of one process (its shards: see Hub::set_shard),
// when no Redis joins several processes. Each hub holds a Bus of its own from
// one LocalBuses; what one publishes about a table reaches the others that
// hold it (Bus::hold), on the publisher's thread (each hub's handler only
// queues it for its own thread); a message to one hub (`to`) reaches it. The limits'
// counts are kept here, in memory, and answered at once, so the shards count
// together exactly; the seek queue is a list here; questions run in order on
// one thread of their own, as Redis's would.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "server/buses/bus.h"

namespace makruk::server {

class LocalBuses {
 public:
  LocalBuses();
  // Every bus it gave must be gone (or stopped) first.
  ~LocalBuses();
  LocalBuses(const LocalBuses&) = delete;
  LocalBuses& operator=(const LocalBuses&) = delete;

  // A bus for one more hub, named `name` (unique among them).
  std::unique_ptr<Bus> attach(const std::string& name);
  // With Redis joining several processes, each hub is an instance there on
  // a bus of its own (`redis`); this one tells the hubs of this process each
  // other's changes directly as well, so that they never wait for Redis
  // (what Redis brings from them is dropped as already heard). The limits'
  // counts, the seek queue and the questions are Redis's.
  std::unique_ptr<Bus> attach_beside(std::unique_ptr<Bus> redis);

 private:
  class Member;
  class BesideRedis;
  void publish(const std::string& from, const BusMessage& m);
  void start(const std::string& id, std::function<void(BusMessage)> handler);
  void stop(const std::string& id);
  void hold(const std::string& id, const std::string& code, bool held);
  void detach(const std::string& id);
  void ask(const std::string& id, std::function<void()> question);
  std::optional<int64_t> count(const std::string& key, int64_t now, bool record);
  std::vector<std::string> seeks();
  size_t seek_count();
  bool add_seek(const std::string& entry, int64_t since);
  bool take_seek(const std::string& entry);
  bool is_alive(const std::string& id);
  void answer_questions();

  // The members by name, with their handlers (empty until started and once
  // stopped): publishing holds the lock while it calls them, so that a
  // stopped member's handler is never called after stop() returns.
  std::mutex members_mutex_;
  std::map<std::string, std::function<void(BusMessage)>> members_;
  std::map<std::string, std::set<std::string>> holders_;  // table code -> the members holding it
  std::mutex data_mutex_;
  std::map<std::string, std::deque<int64_t>> counts_;  // events per key in the last minute
  int64_t counts_swept_at_ = 0;
  std::vector<std::pair<int64_t, std::string>> seeks_;  // (since, entry), oldest first
  // Questions, in order, with the member that asked (dropped once it stops).
  std::mutex questions_mutex_;
  std::condition_variable questions_wake_;
  std::deque<std::pair<std::string, std::function<void()>>> questions_;
  bool questions_stop_ = false;
  std::string asking_;  // the member whose question runs now
  std::thread questions_thread_;
};

}  // namespace makruk::server
