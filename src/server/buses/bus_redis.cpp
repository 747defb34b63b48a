// The bus on Redis publish/subscribe (hiredis). Messages wait in a queue that
// a thread of their own publishes, in order, as many at a time as have come
// (pipelined), so the hub's thread never waits for Redis to tell a change.
// Another connection listens on its own thread and comes back by itself when
// Redis restarts; after such a gap it asks for everything to be read again,
// since messages may have been lost meanwhile. A third one (with a lock)
// answers the questions: the limits' counts (asked in order by a thread of
// their own, so that nobody waits for them), the seek queue, health; each
// question has a short deadline, and once Redis has missed one it is asked
// nothing for a while (longer each time it misses again): meanwhile the
// answers are "unknown", and the hub counts alone. So a stalled Redis costs
// the hub's thread one deadline now and then, never the stall.
#include <hiredis/hiredis.h>
#include <openssl/rand.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "server/buses/bus.h"

namespace makruk::server {

namespace {

namespace json = boost::json;

constexpr const char* CHANNEL = "makruk:tables";
// Messages waiting to go while Redis is away; past this the oldest are lost
// (as they would be anyway: the others read everything again after a gap).
constexpr size_t MAX_QUEUED = 100000;

// How long a question may take, and how long Redis is left alone after it
// missed one (doubling up to the longest while it keeps missing).
constexpr int QUESTION_DEADLINE_MS = 25;
constexpr int64_t AWAY_FIRST_MS = 2000, AWAY_LONGEST_MS = 30000;
// The sender's connection waits this long for Redis before it tries again
// (so that stopping never waits longer for a stalled Redis).
constexpr int SEND_DEADLINE_MS = 2000;

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

timeval as_timeval(int ms) { return timeval{ms / 1000, (ms % 1000) * 1000}; }

struct Address {
  std::string host;
  int port = 6379;
};

Address parse_url(const std::string& url) {
  const std::string scheme = "redis://";
  if (!url.starts_with(scheme)) throw std::runtime_error("--bus must be a redis://HOST:PORT URL");
  std::string rest = url.substr(scheme.size());
  if (auto slash = rest.find('/'); slash != std::string::npos) rest.resize(slash);
  Address a;
  auto colon = rest.rfind(':');
  a.host = colon == std::string::npos ? rest : rest.substr(0, colon);
  if (colon != std::string::npos) {
    try {
      a.port = std::stoi(rest.substr(colon + 1));
    } catch (const std::exception&) {
      throw std::runtime_error("--bus: the port in '" + url + "' is not a number");
    }
  }
  if (a.host.empty() || a.port <= 0 || a.port > 65535) throw std::runtime_error("--bus: malformed URL '" + url + "'");
  return a;
}

// A connection whose connect times out after `deadline_ms`, and with
// `commands_too` each command as well (otherwise a command waits as long as
// it takes).
redisContext* connect_to(const Address& a, int deadline_ms = 2000, bool commands_too = false) {
  redisContext* c = redisConnectWithTimeout(a.host.c_str(), a.port, as_timeval(deadline_ms));
  if (c && !c->err && (!commands_too || redisSetTimeout(c, as_timeval(deadline_ms)) == REDIS_OK)) return c;
  if (c) redisFree(c);
  return nullptr;
}

std::string instance_id() {
  unsigned char b[8];
  RAND_bytes(b, sizeof b);
  std::string s;
  for (unsigned char x : b) s += "0123456789abcdef"[x >> 4], s += "0123456789abcdef"[x & 15];
  return s;
}

class RedisBus final : public Bus {
 public:
  explicit RedisBus(const std::string& url) : address_(parse_url(url)), id_(instance_id()) {
    publisher_ = connect_to(address_);
    if (!publisher_) throw std::runtime_error("cannot reach Redis at " + url);
    redisSetTimeout(publisher_, as_timeval(QUESTION_DEADLINE_MS));
  }

  ~RedisBus() override {
    stop();
    if (publisher_) redisFree(publisher_);
  }

  void stop() override {
    {
      std::lock_guard lock(queue_mutex_);
      stopping_ = true;
    }
    queue_cv_.notify_all();
    {
      std::lock_guard lock(counts_mutex_);  // the counting thread sees it
    }
    counts_cv_.notify_all();
    if (counter_.joinable()) counter_.join();
    if (sender_.joinable()) sender_.join();  // after what was queued has gone
    {
      std::lock_guard lock(listener_mutex_);
      if (listener_) shutdown(listener_->fd, SHUT_RDWR);  // wakes the blocked read
    }
    if (thread_.joinable()) thread_.join();
  }

  void publish(const BusMessage& m) override {
    json::object o{{"i", id_}, {"c", m.code}, {"g", m.game}, {"v", m.version}};
    if (!m.actions.empty()) {
      o["a"] = json::array(m.actions.begin(), m.actions.end());
      o["at"] = m.at;
    }
    if (m.started) {
      o["s"] = json::array{m.started, m.white};
      o["at"] = m.at;
      o["pid"] = m.public_id;
    }
    if (m.presence) {
      o["p"] = json::array{m.seats[0], m.seats[1], m.spectators};
      o["w"] = json::array(m.names.begin(), m.names.end());
    }
    if (!m.paired.empty()) {
      o["to"] = m.to;
      o["conn"] = m.connection;
      o["paired"] = m.paired;
    }
    {
      std::lock_guard lock(queue_mutex_);
      if (queue_.size() >= MAX_QUEUED) queue_.pop_front();
      queue_.push_back(json::serialize(o));
      if (!sender_.joinable() && !stopping_) sender_ = std::thread([this] { send(); });
    }
    queue_cv_.notify_one();
  }

  // Returns once the bus listens (or after 2 s without Redis), so that no
  // change made after it is missed.
  void start(std::function<void(BusMessage)> handler) override {
    handler_ = std::move(handler);
    thread_ = std::thread([this] { listen(); });
    std::unique_lock lock(listener_mutex_);
    subscribed_cv_.wait_for(lock, std::chrono::seconds(2), [this] { return listener_ != nullptr; });
  }

  // One question on the questions' connection (the lock held), opened again
  // if it broke; null when Redis does not answer within the deadline, or
  // missed one a short while ago.
  template <typename... Args>
  redisReply* command(const char* format, Args... args) {
    const int64_t now = steady_ms();
    if (now < away_until_) return nullptr;
    if (!publisher_) publisher_ = connect_to(address_, QUESTION_DEADLINE_MS, true);
    auto* r = publisher_ ? static_cast<redisReply*>(redisCommand(publisher_, format, args...)) : nullptr;
    if (!r) {
      if (publisher_) redisFree(publisher_);
      publisher_ = nullptr;
      away_until_ = steady_ms() + away_ms_;
      away_ms_ = std::min(away_ms_ * 2, AWAY_LONGEST_MS);
      up_ = false;
      return nullptr;
    }
    away_ms_ = AWAY_FIRST_MS;
    up_ = true;
    return r;
  }

  void count(const std::string& key, int64_t now, bool record,
             std::function<void(std::optional<int64_t>)> done) override {
    {
      std::lock_guard lock(counts_mutex_);
      if (stopping_) return;
      if (counts_.size() >= MAX_QUEUED) counts_.pop_front();  // Redis away that long: the oldest go unanswered
      counts_.push_back(Count{key, now, record, std::move(done)});
      if (!counter_.joinable()) counter_ = std::thread([this] { answer(); });
    }
    counts_cv_.notify_one();
  }

  // Never dropped (what waits for them would wait for ever); their callers
  // bound them (a seek per connection at a time, and the seeks' limits).
  void ask(std::function<void()> question) override {
    {
      std::lock_guard lock(counts_mutex_);
      if (stopping_) return;
      questions_.push_back(std::move(question));
      if (!counter_.joinable()) counter_ = std::thread([this] { answer(); });
    }
    counts_cv_.notify_one();
  }

  bool up() const override { return up_; }

  std::optional<std::vector<std::string>> seeks() override {
    std::lock_guard lock(publish_mutex_);
    auto* r = command("ZRANGE makruk:seeks 0 -1");
    if (!r) return std::nullopt;
    std::vector<std::string> out;
    if (r->type == REDIS_REPLY_ARRAY)
      for (size_t i = 0; i < r->elements; ++i)
        if (r->element[i]->type == REDIS_REPLY_STRING) out.emplace_back(r->element[i]->str, r->element[i]->len);
    freeReplyObject(r);
    return out;
  }

  std::optional<size_t> seek_count() override {
    std::lock_guard lock(publish_mutex_);
    auto* r = command("ZCARD makruk:seeks");
    if (!r) return std::nullopt;
    std::optional<size_t> n;
    if (r->type == REDIS_REPLY_INTEGER && r->integer >= 0) n = size_t(r->integer);
    freeReplyObject(r);
    return n;
  }

  bool add_seek(const std::string& entry, int64_t since) override {
    std::lock_guard lock(publish_mutex_);
    const std::string score = std::to_string(since);
    auto* r = command("ZADD makruk:seeks %b %b", score.data(), score.size(), entry.data(), entry.size());
    if (!r) return false;
    freeReplyObject(r);
    return true;
  }

  bool take_seek(const std::string& entry) override {
    std::lock_guard lock(publish_mutex_);
    auto* r = command("ZREM makruk:seeks %b", entry.data(), entry.size());
    if (!r) return false;
    const bool took = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
    freeReplyObject(r);
    return took;
  }

  const std::string& id() const override { return id_; }

  // Said by the sending thread, with what it publishes next.
  void alive() override {
    {
      std::lock_guard lock(queue_mutex_);
      alive_due_ = true;
      if (!sender_.joinable() && !stopping_) sender_ = std::thread([this] { send(); });
    }
    queue_cv_.notify_one();
  }

  bool is_alive(const std::string& instance) override {
    if (instance == id_) return true;
    std::lock_guard lock(publish_mutex_);
    const std::string key = "makruk:alive:" + instance;
    auto* r = command("EXISTS %b", key.data(), key.size());
    if (!r) return true;  // unknown: not taken for dead
    const bool yes = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
    freeReplyObject(r);
    return yes;
  }

  bool healthy() override {
    std::lock_guard lock(publish_mutex_);
    auto* r = command("PING");
    if (!r) return false;
    freeReplyObject(r);
    return true;
  }

 private:
  void listen() {
    bool had_gap = false;
    while (!stopping_) {
      redisContext* c = connect_to(address_);
      if (c) {
        auto* r = static_cast<redisReply*>(redisCommand(c, "SUBSCRIBE %s", CHANNEL));
        if (r) {
          freeReplyObject(r);
          {
            std::lock_guard lock(listener_mutex_);
            listener_ = c;
          }
          subscribed_cv_.notify_all();
          if (had_gap) handler_(BusMessage{});  // read everything again
          had_gap = true;                         // any later reconnection follows a gap
          receive(c);
          std::lock_guard lock(listener_mutex_);
          listener_ = nullptr;
        }
        redisFree(c);
      }
      had_gap = true;
      for (int i = 0; i < 5 && !stopping_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  // The sending thread: publishes what has queued up, all of it in one
  // pipelined round trip (and says this instance is alive when due), until
  // stopped (and the queue is empty). While Redis does not answer, the batch
  // waits and is sent again (the others may then get some of it twice: a
  // change they hold already, which they pass over); what is still unsent at
  // a stop is lost.
  void send() {
    redisContext* c = nullptr;
    std::deque<std::string> batch;
    bool alive = false;
    for (;;) {
      {
        std::unique_lock lock(queue_mutex_);
        queue_cv_.wait(lock, [this, &batch] { return stopping_ || !queue_.empty() || alive_due_ || !batch.empty(); });
        if (stopping_ && queue_.empty() && batch.empty()) break;  // nothing left to say
        while (!queue_.empty() && batch.size() < MAX_QUEUED) {
          batch.push_back(std::move(queue_.front()));
          queue_.pop_front();
        }
        alive = alive || alive_due_;
        alive_due_ = false;
      }
      if (!c) c = connect_to(address_, SEND_DEADLINE_MS, true);
      if (c && publish_all(c, batch, alive ? id_ : std::string())) {
        batch.clear();
        alive = false;
        continue;
      }
      if (c) redisFree(c);
      c = nullptr;
      if (stopping_) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    if (c) redisFree(c);
  }

  // The questions' thread: runs each question, and asks Redis each count, in
  // turn, on the questions' connection (with its deadline, and nothing asked
  // while Redis is away). A question goes before the counts waiting.
  void answer() {
    // A sliding minute per key: a sorted set of event times, trimmed, added
    // to and counted in one step on the Redis side.
    static constexpr const char* SCRIPT =
        "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - 60000) "
        "if ARGV[2] == '1' then redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3]) "
        "redis.call('PEXPIRE', KEYS[1], 60000) end return redis.call('ZCARD', KEYS[1])";
    for (;;) {
      Count c;
      std::function<void()> question;
      {
        std::unique_lock lock(counts_mutex_);
        counts_cv_.wait(lock, [this] { return stopping_ || !counts_.empty() || !questions_.empty(); });
        if (stopping_) return;
        if (!questions_.empty()) {
          question = std::move(questions_.front());
          questions_.pop_front();
        } else {
          c = std::move(counts_.front());
          counts_.pop_front();
        }
      }
      if (question) {
        question();
        continue;
      }
      const std::string full = "makruk:limit:" + c.key, at = std::to_string(c.now);
      std::optional<int64_t> total;
      {
        std::lock_guard lock(publish_mutex_);
        const std::string member = at + ":" + id_ + ":" + std::to_string(++events_);
        if (auto* r = command("EVAL %s 1 %b %b %s %b", SCRIPT, full.data(), full.size(), at.data(), at.size(),
                              c.record ? "1" : "0", member.data(), member.size())) {
          if (r->type == REDIS_REPLY_INTEGER) total = r->integer;
          freeReplyObject(r);
        }
      }
      c.done(total);
    }
  }

  // Publishes the batch and, with `alive` (this instance's id), says so.
  static bool publish_all(redisContext* c, const std::deque<std::string>& batch, const std::string& alive) {
    size_t commands = batch.size();
    if (!alive.empty()) {
      const std::string key = "makruk:alive:" + alive;
      if (redisAppendCommand(c, "SET %b 1 PX 20000", key.data(), key.size()) != REDIS_OK) return false;
      ++commands;
    }
    for (const std::string& text : batch)
      if (redisAppendCommand(c, "PUBLISH %s %b", CHANNEL, text.data(), text.size()) != REDIS_OK) return false;
    for (size_t i = 0; i < commands; ++i) {
      void* reply = nullptr;
      if (redisGetReply(c, &reply) != REDIS_OK || !reply) return false;
      freeReplyObject(reply);
    }
    return true;
  }

  // Reads messages until the connection fails.
  void receive(redisContext* c) {
    while (!stopping_) {
      void* raw = nullptr;
      if (redisGetReply(c, &raw) != REDIS_OK || !raw) return;
      auto* r = static_cast<redisReply*>(raw);
      if (r->type == REDIS_REPLY_ARRAY && r->elements == 3 && r->element[2]->type == REDIS_REPLY_STRING)
        deliver(std::string(r->element[2]->str, r->element[2]->len));
      freeReplyObject(r);
    }
  }

  void deliver(const std::string& text) {
    boost::system::error_code ec;
    json::value v = json::parse(text, ec);
    if (ec || !v.is_object()) return;
    const json::object& o = v.as_object();
    const auto* from = o.if_contains("i");
    const auto* code = o.if_contains("c");
    const auto* game = o.if_contains("g");
    const auto* version = o.if_contains("v");
    if (!from || !from->is_string() || from->as_string() == id_) return;  // ours, or not ours to read
    if (!code || !code->is_string() || code->as_string().empty() || !game || !game->is_int64() || !version ||
        !version->is_int64())
      return;
    BusMessage m(std::string(code->as_string()), game->as_int64(), int(version->as_int64()));
    m.instance = std::string(from->as_string());
    if (const auto* a = o.if_contains("a")) {
      const auto* at = o.if_contains("at");
      if (!a->is_array() || a->as_array().empty() || a->as_array().size() > MAX_BUS_ACTIONS || !at || !at->is_int64())
        return;
      for (const auto& action : a->as_array()) {
        if (!action.is_string() || action.as_string().size() > 64) return;
        m.actions.emplace_back(action.as_string());
      }
      m.at = at->as_int64();
    }
    if (const auto* s = o.if_contains("s")) {
      const auto* at = o.if_contains("at");
      if (!s->is_array() || s->as_array().size() != 2 || !at || !at->is_int64()) return;
      for (const auto& n : s->as_array())
        if (!n.is_int64() || n.as_int64() < 0 || n.as_int64() > 1000000) return;
      const auto* pid = o.if_contains("pid");
      if (!pid || !pid->is_string() || pid->as_string().size() > 32) return;
      m.started = int(s->as_array()[0].as_int64());
      m.white = int(s->as_array()[1].as_int64());
      m.at = at->as_int64();
      m.public_id = std::string(pid->as_string());
    }
    if (const auto* p = o.if_contains("p")) {
      const auto* w = o.if_contains("w");
      if (!p->is_array() || p->as_array().size() != 3 || !w || !w->is_array()) return;
      for (const auto& n : p->as_array())
        if (!n.is_int64() || n.as_int64() < 0 || n.as_int64() > 1000000) return;
      m.presence = true;
      m.seats[0] = int(p->as_array()[0].as_int64());
      m.seats[1] = int(p->as_array()[1].as_int64());
      m.spectators = int(p->as_array()[2].as_int64());
      for (const auto& n : w->as_array())
        if (n.is_string() && m.names.size() < 50) m.names.emplace_back(n.as_string());
    }
    if (const auto* to = o.if_contains("to")) {
      const auto* conn = o.if_contains("conn");
      const auto* paired = o.if_contains("paired");
      if (!to->is_string() || to->as_string() != id_ || !conn || (!conn->is_uint64() && !conn->is_int64()) ||
          !paired || !paired->is_string())
        return;  // for another instance
      m.to = id_;
      m.connection = conn->is_uint64() ? conn->as_uint64() : uint64_t(conn->as_int64());
      m.paired = std::string(paired->as_string());
    }
    handler_(std::move(m));
  }

  Address address_;
  std::string id_;
  std::mutex publish_mutex_;
  redisContext* publisher_ = nullptr;  // for the questions and counts
  std::atomic<bool> up_{true};          // whether it answered the last one
  int64_t away_until_ = 0;              // no question before this (steady ms)
  int64_t away_ms_ = AWAY_FIRST_MS;     // the next pause after a missed question
  std::mutex queue_mutex_;
  std::condition_variable queue_cv_;
  std::deque<std::string> queue_;  // messages to publish, in order
  bool alive_due_ = false;         // the sender says this instance is alive next
  std::thread sender_;
  struct Count {
    std::string key;
    int64_t now = 0;
    bool record = false;
    std::function<void(std::optional<int64_t>)> done;
  };
  std::mutex counts_mutex_;
  std::condition_variable counts_cv_;
  std::deque<Count> counts_;  // counts to ask, in order
  std::deque<std::function<void()>> questions_;  // questions to run, in order
  std::thread counter_;
  uint64_t events_ = 0;  // makes each recorded event a member of its own
  std::mutex listener_mutex_;
  redisContext* listener_ = nullptr;
  std::condition_variable subscribed_cv_;
  std::function<void(BusMessage)> handler_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace

std::unique_ptr<Bus> open_redis_bus(const std::string& url) { return std::make_unique<RedisBus>(url); }

}  // namespace makruk::server
