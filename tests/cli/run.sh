#!/bin/sh
# Drives the real `makruk` binary as a user would: perft totals and --divide,
# adjudicate's JSON, variant names, and exit status 2 with a clear message for
# every kind of bad input. POSIX sh, grep and sed only.
#
#   tests/cli/run.sh /path/to/makruk
#
# Stops at the first failure (exit 1) and says what failed; the last line is
# always "cli: N passed, M failed".

MAKRUK=${1:?usage: run.sh /path/to/makruk}
if [ ! -x "$MAKRUK" ]; then
  echo "run.sh: '$MAKRUK' is not an executable" >&2
  echo "cli: 0 passed, 1 failed"
  exit 1
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/makruk-cli.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

MAKRUK_START='rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1'
OUK_START='rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1'

passed=0
failed=0
current=''

# --- helpers -----------------------------------------------------------------

# run ARGS...: runs makruk; sets $rc, $out (stdout), $err (stderr).
run() {
  "$MAKRUK" "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  out=$(cat "$TMP/out")
  err=$(cat "$TMP/err")
  cmdline="makruk $*"
}

fail() {
  failed=$((failed + 1))
  {
    echo "FAIL: $current"
    echo "  command: $cmdline"
    echo "  problem: $*"
    echo "  exit status: $rc"
    echo "  stdout: $(sed -n '1,5p' "$TMP/out")"
    echo "  stderr: $(sed -n '1,5p' "$TMP/err")"
  } >&2
  echo "cli: $passed passed, $failed failed"
  exit 1
}

# test_case NAME: starts a named check; the checks that follow belong to it.
test_case() {
  current=$1
}

pass() {
  passed=$((passed + 1))
}

expect_rc() {
  [ "$rc" -eq "$1" ] || fail "expected exit status $1"
}

# has STRING: stdout contains STRING (fixed string).
has() {
  printf '%s\n' "$out" | grep -F -q -e "$1" || fail "stdout lacks: $1"
}
hasnt() {
  if printf '%s\n' "$out" | grep -F -q -e "$1"; then fail "stdout should not contain: $1"; fi
}
err_has() {
  printf '%s\n' "$err" | grep -F -q -e "$1" || fail "stderr lacks: $1"
}

lines() { printf '%s' "$out" | sed -n '$='; }
last_line() { printf '%s\n' "$out" | sed -n '$p'; }

expect_one_line() {
  [ "$(lines)" = 1 ] || fail "expected exactly one line of output, got $(lines)"
}

# The number of moves in adjudicate's "legal" array (two quotes per move).
legal_count() {
  quotes=$(printf '%s\n' "$out" | sed -n 's/.*"legal":\[\([^]]*\)\].*/\1/p' | sed 's/[^"]//g')
  echo $((${#quotes} / 2))
}

# expect_perft TOTAL DEPTH [OPTIONS...]: runs perft and checks the output is the total alone.
expect_perft() {
  want=$1
  shift
  run perft "$@"
  expect_rc 0
  expect_one_line
  [ "$out" = "$want" ] || fail "expected perft total $want, got '$out'"
  pass
}

# expect_divide TOTAL MOVES [OPTIONS...]: --divide lines "e3e4: N" summing to TOTAL,
# MOVES of them, and the total alone on the last line.
expect_divide() {
  want=$1
  nmoves=$2
  shift 2
  run perft --divide "$@"
  expect_rc 0
  [ "$(last_line)" = "$want" ] || fail "last line should be the total $want, got '$(last_line)'"
  body=$(printf '%s\n' "$out" | sed '$d')
  bad=$(printf '%s\n' "$body" | grep -v -E '^[a-h][1-8][a-h][1-8]m?: [0-9]+$')
  [ -z "$bad" ] || fail "malformed divide line: $(printf '%s\n' "$bad" | sed -n 1p)"
  count=$(printf '%s\n' "$body" | grep -c -E '^[a-h][1-8][a-h][1-8]m?: [0-9]+$')
  [ "$count" -eq "$nmoves" ] || fail "expected $nmoves divide lines, got $count"
  sum=0
  for n in $(printf '%s\n' "$body" | sed 's/.*: //'); do sum=$((sum + n)); done
  [ "$sum" -eq "$want" ] || fail "divide lines sum to $sum, total says $want"
  pass
}

# expect_adjudicate_error PLY WORD... -- ARGS...: exit 2 and one JSON line
# {"error":"…","ply":PLY} whose error mentions each WORD.
expect_adjudicate_error() {
  ply=$1
  shift
  words=''
  while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
    words="$words$1
"
    shift
  done
  shift
  run adjudicate "$@"
  expect_rc 2
  expect_one_line
  printf '%s\n' "$out" | grep -q -E '^\{"error":"[^"]+","ply":[0-9]+\}$' || fail "not a JSON error object"
  has "\"ply\":$ply}"
  saved_ifs=$IFS
  IFS='
'
  for w in $words; do
    IFS=$saved_ifs
    has "$w"
  done
  IFS=$saved_ifs
  pass
}

# expect_perft_error WORD ARGS...: exit 2, nothing on stdout, WORD on stderr.
expect_perft_error() {
  word=$1
  shift
  run perft "$@"
  expect_rc 2
  [ -z "$out" ] || fail "expected nothing on stdout"
  err_has "$word"
  pass
}

# --- perft ---------------------------------------------------------------------

test_case "perft totals, Makruk start"
expect_perft 1 0
expect_perft 23 1
expect_perft 529 2
expect_perft 12012 3
expect_perft 273026 4 --variant makruk

test_case "perft totals, Ouk start"
expect_perft 25 1 --variant ouk
expect_perft 625 2 --variant ouk
expect_perft 15031 3 --variant ouk

test_case "perft from a FEN"
expect_perft 553 2 --fen 'rnsm1snr/6k1/pppp2pp/P3pp2/8/1PPPPPPP/RSK2M2/1N3SNR w - - 1 7'
expect_perft 2123 3 --fen '8/8/6k1/1n6/8/5S2/3K4/8 b - 128 17 61'
expect_perft 10231 3 --variant ouk --fen 'rn1mk1nr/2s1s3/ppp1pppp/3p4/8/PPPPPPPP/2SMN3/RN1K1S1R w Dde - 2 4'
expect_perft 824 2 --variant ouk --fen 'rns2snr/4mk2/ppp1p1p1/3p1p2/5PP1/PPPPP3/2KNN3/R1S1MS1R w E - 0 7'
expect_perft 23 1 --fen "$MAKRUK_START"

test_case "perft timing goes to stderr"
run perft 2
[ -n "$err" ] || fail "expected timing on stderr"
pass

test_case "perft --divide"
expect_divide 23 23 1
expect_divide 529 23 2
expect_divide 12012 23 3
expect_divide 625 25 2 --variant ouk
expect_divide 169 14 2 --fen '8/8/6k1/1n6/8/5S2/3K4/8 b - 128 17 61'
run perft --divide 2
has 'e3e4: 23'
has 'b1d2: '
run perft --divide 1 --variant ouk
has 'd1b2: 1'
has 'd1f2: 1'
pass

test_case "perft --divide writes promotions with m"
run perft --divide 1 --fen '4k3/8/8/3P4/8/8/8/K7 w - - 0 1'
expect_rc 0
has 'd5d6m: 1'
pass

# --- adjudicate ------------------------------------------------------------------

test_case "adjudicate: start position"
run adjudicate
expect_rc 0
expect_one_line
printf '%s\n' "$out" | grep -q '^{.*}$' || fail "not a JSON object"
has '"variant":"makruk"'
has '"result":"*"'
has '"reason":null'
has "\"fen\":\"$MAKRUK_START\""
has '"turn":"w"'
has '"check":false'
has '"count":null'
has '"repetitions":1'
has '"legal":["'
has '"e3e4"'
has '"b1d2"'
has '"d1c2"'
hasnt '"e3e5"'
[ "$(legal_count)" -eq 23 ] || fail "expected 23 legal moves, got $(legal_count)"
pass

test_case "adjudicate: the field order of the documented example"
printf '%s\n' "$out" | grep -q -E '^\{"variant":"makruk","result":"\*","reason":null,"fen":"[^"]+","turn":"w","check":false,"count":null,"repetitions":1,"drawOffer":null,"legal":\[("[a-h][1-8][a-h][1-8]m?",)*"[a-h][1-8][a-h][1-8]m?"\]\}$' ||
  fail "unexpected shape"
pass

test_case "adjudicate: a draw offered, declined, offered again and accepted"
run adjudicate e3e4 offer:b
expect_rc 0
has '"drawOffer":"b"'
has '"result":"*"'
run adjudicate e3e4 offer:b decline:w e6e5 d3d4 offer:b accept:w
expect_rc 0
has '"result":"1/2-1/2"'
has '"reason":"agreement"'
has '"drawOffer":null'
run adjudicate offer:w offer:w
expect_rc 2
has '"ply":1'
pass

test_case "adjudicate: after a move"
run adjudicate e3e4
expect_rc 0
has '"fen":"rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1"'
has '"turn":"b"'
has '"result":"*"'
[ "$(legal_count)" -eq 23 ] || fail "expected 23 legal moves for Black, got $(legal_count)"
pass

test_case "adjudicate: a promotion, with and without m"
run adjudicate --fen '4k3/8/8/3P4/8/8/8/K7 w - - 0 1' d5d6m
expect_rc 0
has '"fen":"4k3/8/3M~4/8/8/8/8/K7 b - - 0 1"'
run adjudicate --fen '4k3/8/8/3P4/8/8/8/K7 w - - 0 1' d5d6
expect_rc 0
has '"fen":"4k3/8/3M~4/8/8/8/8/K7 b - - 0 1"'
pass

test_case "adjudicate: checkmate"
run adjudicate --fen '7k/8/6K1/8/8/8/8/R7 w - - 0 1' a1a8
expect_rc 0
has '"result":"1-0"'
has '"reason":"checkmate"'
has '"turn":"b"'
has '"check":true'
has '"legal":[]'
pass

test_case "adjudicate: a short game to checkmate"
# The White king walks up, then the rook mates on the back rank.
run adjudicate --fen '7k/8/8/8/8/8/8/R3K3 w - - 0 1' e1f2 h8h7 f2f3 h7h8 f3g4 h8h7 g4g5 h7h8 g5g6 h8g8 a1a8
expect_rc 0
has '"result":"1-0"'
has '"reason":"checkmate"'
pass

test_case "adjudicate: resignation"
run adjudicate e3e4 resign:b
expect_rc 0
has '"result":"1-0"'
has '"reason":"resignation"'
has '"legal":[]'
run adjudicate resign:w
expect_rc 0
has '"result":"0-1"'
has '"reason":"resignation"'
pass

test_case "adjudicate: a table's time runs out (expire): no winner or loser"
run adjudicate e3e4 expire
expect_rc 0
has '"result":"1/2-1/2"'
has '"reason":"expired"'
has '"legal":[]'
run adjudicate e3e4 expire e6e5
expect_rc 2
has 'over'
pass

test_case "adjudicate: Makruk draws by threefold repetition by itself"
run adjudicate b1d2 b8d7 d2b1 d7b8 b1d2 b8d7 d2b1 d7b8
expect_rc 0
has '"result":"1/2-1/2"'
has '"reason":"repetition"'
has '"repetitions":3'
pass

test_case "adjudicate: Ouk repetition is claimed"
run adjudicate --variant ouk b1d2 b8d7 d2b1 d7b8 b1d2 b8d7 d2b1 d7b8
expect_rc 0
has '"result":"*"'
has '"repetitions":3'
run adjudicate --variant ouk b1d2 b8d7 d2b1 d7b8 b1d2 b8d7 d2b1 d7b8 claim:b
expect_rc 0
has '"result":"1/2-1/2"'
has '"reason":"repetition"'
pass

test_case "adjudicate: counts"
run adjudicate --fen '8/8/8/R7/8/8/4k3/2K5 b - - 0 47'
expect_rc 0
has '"count":{"side":"b","kind":"piece","n":3,"limit":16}'
run adjudicate --counting declare --fen '8/8/8/R7/8/8/4k3/2K5 b - - 0 47'
expect_rc 0
has '"count":null'
run adjudicate --counting declare --fen '8/8/8/R7/8/8/4k3/2K5 b - - 0 47' count:b
expect_rc 0
has '"count":{"side":"b","kind":"piece","n":3,"limit":16}'
run adjudicate --counting declare --fen '8/8/8/R7/8/8/4k3/2K5 b - - 0 47' count:b e2e3
expect_rc 0
has '"n":4'
run adjudicate --counting declare --fen '8/8/8/R7/8/8/4k3/2K5 b - - 0 47' count:b stop:b
expect_rc 0
has '"count":null'
pass

test_case "adjudicate: Fairy-Stockfish count numbers in the FEN are ignored"
run adjudicate --fen '8/8/6k1/1n6/8/5S2/3K4/8 b - 128 17 61'
expect_rc 0
has '"fen":"8/8/6k1/1n6/8/5S2/3K4/8 b - - 0 61"'
pass

test_case "variant names"
for name in ouk cambodian ouk-chatrang; do
  run adjudicate --variant "$name"
  expect_rc 0
  has '"variant":"ouk"'
  has "\"fen\":\"$OUK_START\""
  has '"d1b2"'
  [ "$(legal_count)" -eq 25 ] || fail "expected 25 legal moves in Ouk, got $(legal_count)"
  expect_perft 25 1 --variant "$name"
done
run adjudicate --variant makruk
expect_rc 0
has '"variant":"makruk"'
hasnt '"d1b2"'
run adjudicate --variant ouk d1b2
expect_rc 0
has '"fen":"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/1K6/RNS1MSNR b Ede - 0 1"'
pass

# --- bad input: exit status 2 and a clear message -------------------------------------

test_case "malformed FEN (adjudicate)"
expect_adjudicate_error 0 'FEN board' "letter 'q'" -- --fen 'rnsqksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1'
expect_adjudicate_error 0 'FEN board' 'rank 7' -- --fen 'rnsmksnr/7/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1'
expect_adjudicate_error 0 'FEN board' 'king' -- --fen '8/8/8/8/8/8/8/4K3 w - - 0 1'
expect_adjudicate_error 0 'FEN side to move' "'x'" -- --fen '4k3/8/8/8/8/8/8/4K3 x - - 0 1'
expect_adjudicate_error 0 'FEN rights' 'Makruk' -- --fen "$OUK_START"
expect_adjudicate_error 0 'FEN rights' "'Q'" -- --variant ouk --fen 'rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DQ - 0 1'
expect_adjudicate_error 0 'FEN board' 'sixth rank' -- --fen '4k3/8/3P4/8/8/8/8/4K3 w - - 0 1'
expect_adjudicate_error 0 'FEN' 'check' -- --fen '4k3/4R3/8/8/8/8/8/4K3 w - - 0 1'
expect_adjudicate_error 0 'FEN move number' -- --fen '4k3/8/8/8/8/8/8/4K3 w - - 0 zero'
expect_adjudicate_error 0 'FEN' -- --fen 'nonsense'

test_case "malformed FEN (perft)"
expect_perft_error 'FEN board' --fen 'rnsqksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1' 1
expect_perft_error 'FEN side to move' --fen '4k3/8/8/8/8/8/8/4K3 x - - 0 1' 1
expect_perft_error 'FEN rights' --fen "$OUK_START" 1
expect_perft_error 'FEN board' --fen 'k7/8/RRRRRRRR/RRRRRRRR/8/8/8/7K w - - 0 1' 1

test_case "illegal move"
expect_adjudicate_error 1 "illegal move 'e3e5'" 'ply 1' -- e3e5
expect_adjudicate_error 2 "'e3e4'" 'ply 2' -- e3e4 e3e4
expect_adjudicate_error 3 "'a1a8'" -- e3e4 e6e5 a1a8
expect_adjudicate_error 1 "'e3e4m'" -- e3e4m
expect_adjudicate_error 1 "'d1b2'" -- d1b2
expect_adjudicate_error 1 "'zz'" -- zz
expect_adjudicate_error 1 "'e3-e4'" -- e3-e4

test_case "action after the game has ended"
expect_adjudicate_error 2 'over' -- e3e4 resign:w e6e5
expect_adjudicate_error 2 'over' -- e3e4 resign:w resign:b
expect_adjudicate_error 2 'over' -- --fen '7k/8/6K1/8/8/8/8/R7 w - - 0 1' a1a8 h8g8
expect_adjudicate_error 9 'over' -- b1d2 b8d7 d2b1 d7b8 b1d2 b8d7 d2b1 d7b8 e3e4

test_case "count:w when not qualifying"
expect_adjudicate_error 1 'qualify' -- --counting declare count:w
expect_adjudicate_error 1 'White' -- --counting declare --fen '8/8/8/R7/8/8/4k3/2K5 b - - 0 47' count:w
expect_adjudicate_error 1 'automatic' -- count:w

test_case "claim:b without repetition"
expect_adjudicate_error 1 'repetition' -- --variant ouk claim:b
expect_adjudicate_error 3 'repetition' -- --variant ouk b1d2 b8d7 claim:b
expect_adjudicate_error 1 'Makruk' -- claim:b

test_case "stop:w when not counting"
expect_adjudicate_error 1 'not counting' -- --counting declare stop:w
expect_adjudicate_error 1 'not counting' -- --counting declare --fen '8/8/8/R7/8/8/4k3/2K5 b - - 0 47' count:b stop:w
expect_adjudicate_error 1 'automatic' -- stop:w

test_case "malformed action"
expect_adjudicate_error 1 'count:x' -- count:x
expect_adjudicate_error 1 'dance:w' -- dance:w
# The rules' spelling of a draw offer (docs/rules.md §7): an offer, and the other side's acceptance.
run adjudicate draw:w draw:b
expect_rc 0
has '"result":"1/2-1/2","reason":"agreement"'
pass

test_case "unknown variant"
expect_adjudicate_error 0 "unknown variant 'chess'" -- --variant chess
expect_perft_error "unknown variant 'chess'" --variant chess 1

test_case "unknown option"
expect_adjudicate_error 0 '--bogus' -- --bogus
expect_perft_error '--bogus' --bogus 1

test_case "unknown counting mode"
expect_adjudicate_error 0 "unknown counting mode 'sometimes'" -- --counting sometimes

test_case "bad perft depth"
expect_perft_error 'depth'
expect_perft_error 'depth' -1
expect_perft_error 'depth' 21
expect_perft_error 'depth' three

test_case "no or unknown subcommand"
run
expect_rc 2
[ -n "$err" ] || fail "expected a message on stderr"
pass
run chess
expect_rc 2
[ -n "$err" ] || fail "expected a message on stderr"
pass

# MAKRUK_CLI_LIGHT=1 (the sanitizer run) leaves out the cases whose cost is
# the engine's searching (long matches, building an endgame table): the
# optimised run plays them, and the engine's own tests run under the sanitizers.
heavy() { [ -z "${MAKRUK_CLI_LIGHT:-}" ]; }

if heavy; then
test_case "an SPRT stops when it decides: full strength against level 1"
run match --engine "$MAKRUK uci" --engine "$MAKRUK uci" --option2 "Skill Level=1" --depth 3 --games 400 \
  --concurrency 2 --sprt 0,200
expect_rc 0
echo "$out" | grep -q "SPRT elo0 0.0 elo1 200.0: LLR .* H1 accepted" || fail "expected H1 accepted"
pairs=$(echo "$out" | grep -c "^Game ")
[ "$pairs" -lt 400 ] || fail "expected the match to stop early, played $pairs"
echo "$out" | grep -q "^Pairs (0, 1/2, 1, 3/2, 2 points): " || fail "expected the pairs"
pass

test_case "an SPRT between an engine and itself accepts H0 for a large difference"
run match --engine "$MAKRUK uci" --engine "$MAKRUK uci" --option1 "Skill Level=2" --option2 "Skill Level=2" \
  --depth 2 --games 600 --concurrency 2 --sprt 150,300
expect_rc 0
echo "$out" | grep -q "H0 accepted" || fail "expected H0 accepted"
pass
fi

test_case "bad SPRT bounds"
run match --engine "$MAKRUK uci" --engine "$MAKRUK uci" --depth 1 --sprt 5,0
expect_rc 2
echo "$err" | grep -q "needs ELO0,ELO1 with ELO0 < ELO1" || fail "expected the bounds explained"
pass
run match --engine "$MAKRUK uci" --engine "$MAKRUK uci" --depth 1 --sprt five
expect_rc 2
pass

test_case "a match resumed from an earlier run's output plays only the games it lacks"
printf '%s\n' 'Game 1: a - b 1-0 (checkmate)  score 1-0-0' 'some other line' \
  'Game 2: b - a 1/2-1/2 (repetition)  score 1-0-1' > "$TMP/match1.log"
run match --engine "$MAKRUK uci" --engine "$MAKRUK uci" --name a --name b --depth 1 --games 2 \
  --resume "$TMP/match1.log"
expect_rc 0
echo "$out" | grep -q "^Resumed: 2 games already played, score 1-0-1" || fail "expected the resumed score"
[ "$(echo "$out" | grep -c '^Game ')" -eq 0 ] || fail "expected no game played again"
echo "$out" | grep -q "^Score of a vs b: 1 - 0 - 1 " || fail "expected the earlier games in the score"
echo "$out" | grep -q "^Pairs (0, 1/2, 1, 3/2, 2 points): 0, 0, 0, 1, 0 " || fail "expected one pair of 3/2"
run match --engine "$MAKRUK uci" --engine "$MAKRUK uci" --name a --name b --depth 1 --games 4 \
  --resume "$TMP/match1.log"
expect_rc 0
[ "$(echo "$out" | grep -c '^Game ')" -eq 2 ] || fail "expected two games played"
echo "$out" | grep -q "^Game 3: a - b " || fail "expected game 3 played"
echo "$out" | grep -q "^Game 4: b - a " || fail "expected game 4 played"
echo "$out" | grep -q "^Score of a vs b: .* 4$" || fail "expected four games in the score"
echo "$out" > "$TMP/match2.log"
run match --engine "$MAKRUK uci" --engine "$MAKRUK uci" --name a --name b --depth 1 --games 4 \
  --resume "$TMP/match1.log" --resume "$TMP/match2.log"
expect_rc 0
[ "$(echo "$out" | grep -c '^Game ')" -eq 0 ] || fail "expected nothing left to play"
pass
run match --engine "$MAKRUK uci" --engine "$MAKRUK uci" --name b --name a --depth 1 --games 4 \
  --resume "$TMP/match1.log"
expect_rc 2
echo "$err" | grep -q "match1.log:1: the game was played by other engines or colours" || fail "expected the names refused"
run match --engine "$MAKRUK uci" --engine "$MAKRUK uci" --name a --name b --depth 1 --games 1 \
  --resume "$TMP/match1.log"
expect_rc 2
echo "$err" | grep -q "match1.log:3: game 2 lies outside --games" || fail "expected the game number refused"
printf '%s\n' 'Game 1: a - b 0-1 (checkmate)' > "$TMP/match3.log"
run match --engine "$MAKRUK uci" --engine "$MAKRUK uci" --name a --name b --depth 1 --games 4 \
  --resume "$TMP/match1.log" --resume "$TMP/match3.log"
expect_rc 2
echo "$err" | grep -q "read twice with different results" || fail "expected the contradiction refused"
run match --engine "$MAKRUK uci" --engine "$MAKRUK uci" --depth 1 --resume "$TMP/missing.log"
expect_rc 2
echo "$err" | grep -q "cannot read match log" || fail "expected the missing log named"
pass

test_case "a match's PGN notes each engine move's score, depth and time"
printf '%s\n' 'startpos moves e3e4 e6e5 d3d4 d6d5' '4k3/R7/1R6/8/8/8/8/4K3 w - - 0 1' > "$TMP/notes.txt"
run match --engine "$MAKRUK uci" --engine "$MAKRUK uci" --name a --name b --depth 2 --games 4 \
  --openings "$TMP/notes.txt" --pgn "$TMP/notes.pgn"
expect_rc 0
[ "$(grep -c '^\[Round ' "$TMP/notes.pgn")" -eq 4 ] || fail "expected four games in the PGN"
grep -q '^1\. [^{]* 3\. [A-Za-z0-9+]* {[-+][0-9]*\.[0-9][0-9]/2 [0-9]*\.[0-9][0-9]s} 3\.\.\. ' "$TMP/notes.pgn" ||
  fail "expected the opening's moves bare, then each move with its note"
grep -q '^1\. Rb8# {+M1/2 [0-9]*\.[0-9][0-9]s} 1-0$' "$TMP/notes.pgn" || fail "expected the mate announced in a note"
pass

if heavy; then
test_case "a match gives the second engine its own nodes with --nodes2 (equal time for engines of different speeds)"
printf '%s\n' 'startpos moves e3e4 e6e5 d3d4 d6d5' > "$TMP/nodes2.txt"
run match --engine "$MAKRUK uci" --engine "$MAKRUK uci" --name a --name b --nodes 1 --nodes2 100000 --games 2 \
  --openings "$TMP/nodes2.txt" --max-plies 16 --pgn "$TMP/nodes2.pgn"
expect_rc 0
# The depth of each note of a game, White's then Black's moves.
depths() {
  awk -v r="$1" '/^\[Round /{on = ($0 == "[Round \"" r "\"]")} on' "$TMP/nodes2.pgn" | tr '\n' ' ' |
    grep -o "[0-9][0-9]*\.$2 [^ ]* {[-+][0-9.M]*/[0-9]*" | sed 's|.*/||' | sort -n
}
[ "$(depths 1 '' | tail -n 1)" -lt "$(depths 1 '\.\.' | head -n 1)" ] || fail "expected b (Black) deeper in game 1"
[ "$(depths 2 '\.\.' | tail -n 1)" -lt "$(depths 2 '' | head -n 1)" ] || fail "expected b (White) deeper in game 2"
run match --engine "$MAKRUK uci" --engine "$MAKRUK uci" --depth 1 --nodes2 100
expect_rc 2
echo "$err" | grep -q "give --nodes too" || fail "expected --nodes asked for"
pass
fi

test_case "spsa: a short run writes numbers the UCI engine takes"
run spsa --iterations 2 --nodes 200 --tune rfp_margin --tune lmr_div --out "$TMP/spsa.txt" --seed 4
expect_rc 0
expect_one_line
echo "$out" | grep -q '^rfp_depth=6 rfp_margin=[0-9]* .* lmr_div=[0-9]* .*aspiration=30 check_see=0 qs_checks=0 tt_eval=0$' ||
  fail "expected every number, the untuned ones at their defaults"
[ "$(cat "$TMP/spsa.txt")" = "$out" ] || fail "expected --out to hold the printed numbers"
err_has "spsa: 2/2 pairs (won "
printf 'setoption name SearchParams value %s\nposition startpos\ngo depth 3\nquit\n' "$out" > "$TMP/spsa.in"
"$MAKRUK" uci < "$TMP/spsa.in" > "$TMP/spsa.uci" 2>&1
grep -q '^bestmove ' "$TMP/spsa.uci" || fail "expected the engine to search with the numbers"
if grep -q 'info string' "$TMP/spsa.uci"; then fail "expected the numbers taken without a complaint"; fi
pass

test_case "spsa: bad input is refused before any game"
run spsa --iterations 2 --nodes 200 --tune lmr_speed
expect_rc 2
err_has "no search parameter named 'lmr_speed'"
run spsa --iterations 2
expect_rc 2
err_has "give a clock (--tc 2+0.02) or a node limit (--nodes 4000)"
run spsa --iterations 2 --tc fast
expect_rc 2
err_has "bad time control 'fast'"
run spsa --iterations 2 --nodes 200 --start "rfp_margin=9000"
expect_rc 2
err_has "'rfp_margin' needs a whole number from 20 to 400, got '9000'"
run spsa --iterations 2 --nodes 200 --out "$TMP/no/such/folder/spsa.txt"
expect_rc 2
err_has "cannot write"
pass

test_case "nnue-train: a start from a network that cannot be one is refused before training"
printf '%s\n' 'rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1;0.5;0' > "$TMP/train.txt"
run nnue-train --data "$TMP/train.txt" --out "$TMP/tuned.nnue" --init "$TMP/no-such.nnue"
expect_rc 1
err_has "--init $TMP/no-such.nnue"
run nnue-train --data "$TMP/train.txt" --out "$TMP/tuned.nnue" --init "$TMP/train.txt"
expect_rc 1
err_has "--init $TMP/train.txt"
run nnue-train --data "$TMP/train.txt" --out "$TMP/tuned.nnue" --init "$TMP/train.txt" --resume "$TMP/x.ckpt"
expect_rc 2
err_has "give one or the other"
[ ! -e "$TMP/tuned.nnue" ] || fail "expected no network written"
pass

test_case "label: the positions of a game scored by the engine's search, and bad input refused"
cat > "$TMP/label.pgn" <<'PGN'
[Event "one"]
[Result "1-0"]
[Variant "makruk"]

1. e4 e5 2. d4 d5 3. Nd2 Nd7 4. Ne2 Ne7 5. c4 c5 6. Rb1 Rb8 1-0

[Event "two"]
[Result "*"]
[Variant "makruk"]

1. e4 e5 *

[Event "three"]
[Result "0-1"]
[Variant "cambodian"]

1. e4 e5 0-1
PGN
run label --pgn "$TMP/label.pgn" --nodes 500 --skip-plies 2 --out "$TMP/label.txt"
expect_rc 0
err_has "skipped 1 games of another variant and 1 without a result"
err_has "label: 1 games, 0 lines; "
n=$(grep -c ';1;' "$TMP/label.txt")
[ "$n" -ge 5 ] && [ "$n" -le 10 ] || fail "expected the game's quiet positions from ply 2 with its result, got $n"
grep -v -q ';1;-\{0,1\}[0-9]*$' "$TMP/label.txt" && fail "expected FEN;1;SCORE lines"
run label --positions "$TMP/label.txt" --nodes 2000 --threads 2
expect_rc 0
[ "$(lines)" -eq "$n" ] || fail "expected every line scored again"
[ "$(echo "$out" | cut -d';' -f1,2)" = "$(cut -d';' -f1,2 "$TMP/label.txt")" ] || fail "expected the same positions and results in order"
printf '1. e4 e5 2. Kxh8 *\n' > "$TMP/label-bad.pgn"
run label --pgn "$TMP/label.pgn" --pgn "$TMP/label-bad.pgn" --out "$TMP/label-none.txt"
expect_rc 2
err_has "label-bad.pgn: game 1: "
[ ! -e "$TMP/label-none.txt" ] || fail "expected nothing written"
printf 'not a fen;1\n' > "$TMP/label-bad.txt"
run label --positions "$TMP/label-bad.txt"
expect_rc 2
err_has "label-bad.txt: line 1: expected FEN;RESULT[;SCORE]"
run label --nodes 500
expect_rc 2
err_has "give --pgn FILE or --positions FILE"
run label --pgn "$TMP/no-such.pgn"
expect_rc 2
err_has "cannot read"
pass

test_case "unbalanced openings: the side to move is ahead"
run openings --count 3 --plies 8 --depth 6 --min-score 80 --max-score 150 --seed 3
expect_rc 0
[ "$(echo "$out" | grep -c '^startpos moves ')" -eq 3 ] || fail "expected 3 lines"
echo "$out" | sed -n 's/.*# cp //p' | while read -r cp; do
  [ "$cp" -ge 80 ] && [ "$cp" -le 150 ] || { echo "score $cp out of range" >&2; exit 1; }
done || fail "a score out of 80..150"
pass

if heavy; then
test_case "endgame tables: three mets written to a folder, read by the UCI engine"
run egtb MMM --dir "$TMP/egtb" --save
expect_rc 2
echo "$err" | grep -q "is not a folder" || fail "expected the missing folder named"
mkdir "$TMP/egtb"
run egtb MMM --dir "$TMP/egtb" --save
expect_rc 0
echo "$out" | grep -q "^KMMMK  built .* longest win  79 plies" || fail "expected the table built"
[ -f "$TMP/egtb/KMMMK.mktb" ] || fail "expected KMMMK.mktb"
run egtb MMM --dir "$TMP/egtb"
expect_rc 0
echo "$out" | grep -q "^KMMMK  read .* longest win  79 plies" || fail "expected the table read"
# Three plies see no mate without the table, and the mate's distance with it.
fen='8/8/8/3k4/8/8/2MMM3/3K4 w - - 0 1'
printf 'setoption name EgtbPath value %s\nposition fen %s\ngo depth 3\n' "$TMP/egtb" "$fen" >"$TMP/in"
run uci <"$TMP/in"
echo "$out" | grep -q "info string EgtbPath: 1 three-piece tables from" || fail "expected the table mapped"
echo "$out" | grep -q "^info depth 3 .*score mate " || fail "expected a mate score at depth 3"
printf 'position fen %s\ngo depth 3\n' "$fen" >"$TMP/in"
run uci <"$TMP/in"
echo "$out" | grep -q "^info depth 3 .*score cp " || fail "expected no mate score without the table"
# The server's CPU players read the folder too (--egtb; by default DATA/egtb).
timeout 3 "$MAKRUK" serve --address 127.0.0.1 --port 0 --data "$TMP/data" --egtb "$TMP/egtb" \
  >"$TMP/out" 2>"$TMP/err"
grep -q "1 three-piece endgame tables in $TMP/egtb" "$TMP/err" || fail "expected serve to read the table"
run egtb MMMM
expect_rc 2
echo "$err" | grep -q "not a material" || fail "expected the material refused"
run egtb M --save
expect_rc 2
echo "$err" | grep -q "needs --dir" || fail "expected --dir asked for"
pass
fi

test_case "pgn: a collection of records checked and converted"
cat >"$TMP/games.pgn" <<'PGN'
[Event "One"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. Nd2 Nd7 2. Nc4 Ne7 3. Nxd6# 1-0

[Event "Two"]
[variant "cambodian"]

1. e4 {a comment
[a line in it that looks like a tag]} d5 2. Bc2 Zz9 *

[Event "Three"]
[FEN "4k3/8/8/4P3/8/8/8/3K4 w - - 0 1"]

1. e6=P Kd8 2. Pf7 *
PGN
run pgn "$TMP/games.pgn"
expect_rc 2
[ "$(lines)" = 3 ] || fail "expected a JSON line per game, got $(lines)"
has '{"game":1,"ok":true,"variant":"makruk"'
has '"moves":["b1d2","b8d7","d2c4","g8e7","c4d6"],"san":["Nd2","Nd7","Nc4","Ne7","Nxd6#"]'
has '{"game":2,"ok":false,"error":"2... Zz9: unreadable move '"'"'Zz9'"'"' (no notation the importer knows)","msg":"pgn.move"}'
has '"moves":["e5e6m","e8d8","e6f7"],"san":["e6=M","Kd8","Mf7"]'
err_has "game 2: 2... Zz9: unreadable move"
run pgn --to san "$TMP/games.pgn"
expect_rc 2
has "Nd2 Nd7 Nc4 Ne7 Nxd6#"
has "e6=M Kd8 Mf7"
run pgn --to coords "$TMP/games.pgn"
has "e5e6m e8d8 e6f7"
# Thai and Khmer as the game screen writes them (read back by the move box and the importer).
run pgn --to thai-local "$TMP/games.pgn"
has "มง๒ มง๗ มค๔ มจ๗ ม×ง๖#"
has "จ๖=ม็ ขง๘ ม็ฉ๗"
run pgn --to khmer "$TMP/games.pgn"
has "សឃ២ សឃ៧ សគ៤ សង៧ ស×ឃ៦#"
printf '1. សឃ២ សឃ៧ 2. มค๔ *\n' >"$TMP/local.txt"
run pgn --to coords "$TMP/local.txt"
expect_rc 0
[ "$out" = "b1d2 b8d7 d2c4" ] || fail "expected Khmer and Thai moves read back, got '$out'"
# As our PGN: a game our rules end early (bare kings) keeps its moves up to there.
printf '[FEN "rk6/8/8/8/8/8/8/R2K4 w - - 0 1"]\n1. Rxa8+ Kxa8 2. Kd2 Kb7 *\n' >"$TMP/bare.pgn"
run pgn --to pgn "$TMP/bare.pgn"
expect_rc 0
has '[Termination "bare kings"]'
has "1. Rxa8+ Kxa8 {bare kings} 1/2-1/2"
err_has "our rules end the game after ply 2"
# Standard input, and what it refuses.
printf '1. e4 d5\n' >"$TMP/in"
run pgn --to coords <"$TMP/in"
expect_rc 0
[ "$out" = "e3e4 d6d5" ] || fail "expected the moves from standard input, got '$out'"
run pgn --to xml "$TMP/games.pgn"
expect_rc 2
err_has "unknown form 'xml'"
run pgn "$TMP/none.pgn"
expect_rc 2
err_has "cannot read"
run pgn --variant chess "$TMP/games.pgn"
expect_rc 2
err_has "unknown variant 'chess'"
pass

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
