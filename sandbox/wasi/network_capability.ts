/**
 * `wasi:sockets/network.network`, the handle that TCP, UDP and name lookups
 * take as the right to use the network. It carries nothing: there is one
 * network, the host's.
 *
 * @module
 */

/**
 * `wasi:sockets/network.network`: the capability to use the network. There
 * is one network, the host's; a fresh handle is made for each request
 * (jco would hand back the dropped handle of a reused object).
 */
export class Network {}
