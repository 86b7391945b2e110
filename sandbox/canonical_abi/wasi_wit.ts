/**
 * WIT of WASI 0.2 interfaces the lean path binds at the canonical-ABI level
 * (io, cli stdio/environment/exit, clocks, random, sockets),
 * as the `wasi` crate 0.14.4 (WASI 0.2.4) ships them, comments and feature
 * gates taken out; `wit.ts` reads it. Generated from the crate's
 * `wit/deps/` (Apache-2.0 WITH LLVM-exception).
 *
 * @module
 */

/** Package name and the text of its interfaces. */
export const WASI_WIT: readonly [pkg: string, text: string][] = [
  // io/error.wit
  [
    "wasi:io",
    `
interface error {
resource error {
to-debug-string: func() -> string;
}
}
`,
  ],
  // io/poll.wit
  [
    "wasi:io",
    `
interface poll {
resource pollable {
ready: func() -> bool;
block: func();
}
poll: func(in: list<borrow<pollable>>) -> list<u32>;
}
`,
  ],
  // io/streams.wit
  [
    "wasi:io",
    `
interface streams {
use error.{error};
use poll.{pollable};
variant stream-error {
last-operation-failed(error), closed}
resource input-stream {
read: func(len: u64) -> result<list<u8>, stream-error>;
blocking-read: func(len: u64) -> result<list<u8>, stream-error>;
skip: func(len: u64) -> result<u64, stream-error>;
blocking-skip: func(len: u64) -> result<u64, stream-error>;
subscribe: func() -> pollable;
}
resource output-stream {
check-write: func() -> result<u64, stream-error>;
write: func(contents: list<u8>) -> result<_, stream-error>;
blocking-write-and-flush: func(contents: list<u8>) -> result<_, stream-error>;
flush: func() -> result<_, stream-error>;
blocking-flush: func() -> result<_, stream-error>;
subscribe: func() -> pollable;
write-zeroes: func(len: u64) -> result<_, stream-error>;
blocking-write-zeroes-and-flush: func(len: u64) -> result<_, stream-error>;
splice: func(src: borrow<input-stream>, len: u64) -> result<u64, stream-error>;
blocking-splice: func(src: borrow<input-stream>, len: u64) -> result<u64, stream-error>;
}
}
`,
  ],
  // cli/stdio.wit
  [
    "wasi:cli",
    `
interface stdin {
use wasi:io/streams@0.2.4.{input-stream};
get-stdin: func() -> input-stream;
}
interface stdout {
use wasi:io/streams@0.2.4.{output-stream};
get-stdout: func() -> output-stream;
}
interface stderr {
use wasi:io/streams@0.2.4.{output-stream};
get-stderr: func() -> output-stream;
}
`,
  ],
  // cli/environment.wit
  [
    "wasi:cli",
    `
interface environment {
get-environment: func() -> list<tuple<string, string>>;
get-arguments: func() -> list<string>;
initial-cwd: func() -> option<string>;
}
`,
  ],
  // cli/exit.wit
  [
    "wasi:cli",
    `
interface exit {
exit: func(status: result);
exit-with-code: func(status-code: u8);
}
`,
  ],
  // clocks/monotonic-clock.wit
  [
    "wasi:clocks",
    `
interface monotonic-clock {
use wasi:io/poll@0.2.4.{pollable};
type instant = u64;
type duration = u64;
now: func() -> instant;
resolution: func() -> duration;
subscribe-instant: func(when: instant) -> pollable;
subscribe-duration: func(when: duration) -> pollable;
}
`,
  ],
  // clocks/wall-clock.wit
  [
    "wasi:clocks",
    `
interface wall-clock {
record datetime {
seconds: u64, nanoseconds: u32,}
now: func() -> datetime;
resolution: func() -> datetime;
}
`,
  ],
  // random/random.wit
  [
    "wasi:random",
    `
interface random {
get-random-bytes: func(len: u64) -> list<u8>;
get-random-u64: func() -> u64;
}
`,
  ],
  // random/insecure.wit
  [
    "wasi:random",
    `
interface insecure {
get-insecure-random-bytes: func(len: u64) -> list<u8>;
get-insecure-random-u64: func() -> u64;
}
`,
  ],
  // random/insecure-seed.wit
  [
    "wasi:random",
    `
interface insecure-seed {
insecure-seed: func() -> tuple<u64, u64>;
}
`,
  ],
  // sockets/network.wit
  [
    "wasi:sockets",
    `
interface network {
use wasi:io/error@0.2.4.{error};
resource network;
enum error-code {
unknown, access-denied, not-supported, invalid-argument, out-of-memory, timeout, concurrency-conflict, not-in-progress, would-block, invalid-state, new-socket-limit, address-not-bindable, address-in-use, remote-unreachable, connection-refused, connection-reset, connection-aborted, datagram-too-large, name-unresolvable, temporary-resolver-failure, permanent-resolver-failure,}
network-error-code: func(err: borrow<error>) -> option<error-code>;
enum ip-address-family {
ipv4, ipv6,}
type ipv4-address = tuple<u8, u8, u8, u8>;
type ipv6-address = tuple<u16, u16, u16, u16, u16, u16, u16, u16>;
variant ip-address {
ipv4(ipv4-address), ipv6(ipv6-address),}
record ipv4-socket-address {
port: u16, address: ipv4-address,}
record ipv6-socket-address {
port: u16, flow-info: u32, address: ipv6-address, scope-id: u32,}
variant ip-socket-address {
ipv4(ipv4-socket-address), ipv6(ipv6-socket-address),}
}
`,
  ],
  // sockets/instance-network.wit
  [
    "wasi:sockets",
    `
interface instance-network {
use network.{network};
instance-network: func() -> network;
}
`,
  ],
  // sockets/tcp.wit
  [
    "wasi:sockets",
    `
interface tcp {
use wasi:io/streams@0.2.4.{input-stream, output-stream};
use wasi:io/poll@0.2.4.{pollable};
use wasi:clocks/monotonic-clock@0.2.4.{duration};
use network.{network, error-code, ip-socket-address, ip-address-family};
enum shutdown-type {
receive, send, both,}
resource tcp-socket {
start-bind: func(network: borrow<network>, local-address: ip-socket-address) -> result<_, error-code>;
finish-bind: func() -> result<_, error-code>;
start-connect: func(network: borrow<network>, remote-address: ip-socket-address) -> result<_, error-code>;
finish-connect: func() -> result<tuple<input-stream, output-stream>, error-code>;
start-listen: func() -> result<_, error-code>;
finish-listen: func() -> result<_, error-code>;
accept: func() -> result<tuple<tcp-socket, input-stream, output-stream>, error-code>;
local-address: func() -> result<ip-socket-address, error-code>;
remote-address: func() -> result<ip-socket-address, error-code>;
is-listening: func() -> bool;
address-family: func() -> ip-address-family;
set-listen-backlog-size: func(value: u64) -> result<_, error-code>;
keep-alive-enabled: func() -> result<bool, error-code>;
set-keep-alive-enabled: func(value: bool) -> result<_, error-code>;
keep-alive-idle-time: func() -> result<duration, error-code>;
set-keep-alive-idle-time: func(value: duration) -> result<_, error-code>;
keep-alive-interval: func() -> result<duration, error-code>;
set-keep-alive-interval: func(value: duration) -> result<_, error-code>;
keep-alive-count: func() -> result<u32, error-code>;
set-keep-alive-count: func(value: u32) -> result<_, error-code>;
hop-limit: func() -> result<u8, error-code>;
set-hop-limit: func(value: u8) -> result<_, error-code>;
receive-buffer-size: func() -> result<u64, error-code>;
set-receive-buffer-size: func(value: u64) -> result<_, error-code>;
send-buffer-size: func() -> result<u64, error-code>;
set-send-buffer-size: func(value: u64) -> result<_, error-code>;
subscribe: func() -> pollable;
shutdown: func(shutdown-type: shutdown-type) -> result<_, error-code>;
}
}
`,
  ],
  // sockets/tcp-create-socket.wit
  [
    "wasi:sockets",
    `
interface tcp-create-socket {
use network.{network, error-code, ip-address-family};
use tcp.{tcp-socket};
create-tcp-socket: func(address-family: ip-address-family) -> result<tcp-socket, error-code>;
}
`,
  ],
  // sockets/udp.wit
  [
    "wasi:sockets",
    `
interface udp {
use wasi:io/poll@0.2.4.{pollable};
use network.{network, error-code, ip-socket-address, ip-address-family};
record incoming-datagram {
data: list<u8>, remote-address: ip-socket-address,}
record outgoing-datagram {
data: list<u8>, remote-address: option<ip-socket-address>,}
resource udp-socket {
start-bind: func(network: borrow<network>, local-address: ip-socket-address) -> result<_, error-code>;
finish-bind: func() -> result<_, error-code>;
%stream: func(remote-address: option<ip-socket-address>) -> result<tuple<incoming-datagram-stream, outgoing-datagram-stream>, error-code>;
local-address: func() -> result<ip-socket-address, error-code>;
remote-address: func() -> result<ip-socket-address, error-code>;
address-family: func() -> ip-address-family;
unicast-hop-limit: func() -> result<u8, error-code>;
set-unicast-hop-limit: func(value: u8) -> result<_, error-code>;
receive-buffer-size: func() -> result<u64, error-code>;
set-receive-buffer-size: func(value: u64) -> result<_, error-code>;
send-buffer-size: func() -> result<u64, error-code>;
set-send-buffer-size: func(value: u64) -> result<_, error-code>;
subscribe: func() -> pollable;
}
resource incoming-datagram-stream {
receive: func(max-results: u64) -> result<list<incoming-datagram>, error-code>;
subscribe: func() -> pollable;
}
resource outgoing-datagram-stream {
check-send: func() -> result<u64, error-code>;
send: func(datagrams: list<outgoing-datagram>) -> result<u64, error-code>;
subscribe: func() -> pollable;
}
}
`,
  ],
  // sockets/udp-create-socket.wit
  [
    "wasi:sockets",
    `
interface udp-create-socket {
use network.{network, error-code, ip-address-family};
use udp.{udp-socket};
create-udp-socket: func(address-family: ip-address-family) -> result<udp-socket, error-code>;
}
`,
  ],
  // sockets/ip-name-lookup.wit
  [
    "wasi:sockets",
    `
interface ip-name-lookup {
use wasi:io/poll@0.2.4.{pollable};
use network.{network, error-code, ip-address};
resolve-addresses: func(network: borrow<network>, name: string) -> result<resolve-address-stream, error-code>;
resource resolve-address-stream {
resolve-next-address: func() -> result<option<ip-address>, error-code>;
subscribe: func() -> pollable;
}
}
`,
  ],
];
