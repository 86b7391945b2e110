/**
 * The shape of a method of the core API (`core.*`): the router calls it with
 * the caller and the params; the core API, the locks and the activator
 * provide them.
 *
 * @module
 */

import type { Id, JsonObject } from "../../rpc/message.ts";
import type { Caller } from "../processes/process.ts";

/** A core method: params in, result out (or a `HostError` thrown). */
export type CoreMethod = (
  caller: Caller,
  params: JsonObject,
  id: Id | undefined,
) => unknown | Promise<unknown>;
