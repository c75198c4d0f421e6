/**
 * The connection manager of librdmacm: reach peers by IP address and port, and connect queue pairs to them.
 *
 * <p>Two levels. {@link io.jrdma.rdmacm.RdmaListener} and {@link io.jrdma.rdmacm.RdmaConnection} are socket-like:
 * a connection sets up and owns everything it needs and offers messages, RDMA reads and writes and atomics.
 * {@link io.jrdma.rdmacm.EventChannel} and {@link io.jrdma.rdmacm.CmId} are librdmacm's own objects, for
 * applications that build their queue pairs themselves with the {@code io.jrdma.ibverbs} API.
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.ConnectionSnippets region=connection}
 *
 * <h2>Lifetimes</h2>
 *
 * <ul>
 *   <li>An {@link io.jrdma.rdmacm.RdmaConnection} owns its event channel, id, protection domain, completion queues,
 *       queue pair and the regions it {@linkplain io.jrdma.rdmacm.RdmaConnection#register registers}; closing it
 *       tells the peer and releases them all. An {@link io.jrdma.rdmacm.RdmaListener} owns its channel and listening
 *       id; the connections it accepted live on after it closes, each with a channel of its own.</li>
 *   <li>An {@link io.jrdma.rdmacm.EventChannel} is a root: its {@link io.jrdma.rdmacm.CmId}s are its children
 *       ({@link io.jrdma.rdmacm.CmId#migrate} moves one to another channel). A queue pair created through
 *       {@link io.jrdma.rdmacm.CmId#createQueuePair} is a child of the id as well as of its protection domain and
 *       completion queues. Close in reverse: queue pair, its queues and protection domain, the id, the channel.
 *       A queue pair the application built itself with the verbs API and connected through an id
 *       ({@link io.jrdma.rdmacm.CmId#queuePairAttributes}) is no child of the id.
 *       As in {@code io.jrdma.ibverbs}, closing an object with open children throws
 *       {@link java.lang.IllegalStateException} and closes nothing, {@code close()} is idempotent, and using a
 *       closed object throws {@link java.lang.IllegalStateException}.</li>
 *   <li>The {@link io.jrdma.ibverbs.Context} of an id ({@link io.jrdma.rdmacm.CmId#context()}) was opened by
 *       librdmacm, which keeps it open: close the objects made from it, not necessarily the context.</li>
 *   <li>Events are copied into {@link io.jrdma.rdmacm.CmEvent}s and acknowledged as they are read: there is nothing
 *       to release. A channel or id that becomes unreachable without being closed is reported (a warning naming it,
 *       with where it was created) and released, a channel after its ids.</li>
 * </ul>
 *
 * <h2>Threads</h2>
 *
 * <p>Every class here may be used from any thread. An {@link io.jrdma.rdmacm.RdmaConnection} runs its sending
 * operations (messages, advertisements, reads, writes, atomics) one at a time, and its receiving ones
 * ({@link io.jrdma.rdmacm.RdmaConnection#receive}, {@link io.jrdma.rdmacm.RdmaConnection#awaitRemoteRegion}) one at
 * a time, each kind alongside the other; {@link io.jrdma.rdmacm.RdmaListener#accept} callers take turns. Threads waiting with
 * {@link io.jrdma.rdmacm.CmId#await} on ids of one channel each get their own id's events: the others read meanwhile
 * are kept for their waiters. Either {@link io.jrdma.rdmacm.EventChannel#poll} a channel or give it an
 * {@link io.jrdma.rdmacm.EventChannel#startEventLoop event loop}, not both. Waits poll the channel's descriptor with
 * a timeout: they are interruptible and suit virtual threads, and closing the channel ends them with
 * {@link java.lang.IllegalStateException}, as closing an id ends the waits for its events. Closing an id while other
 * threads call it waits for those calls to return (none of them blocks), then refuses later ones with
 * {@link java.lang.IllegalStateException}: a close never frees an id under a call.
 *
 * <h2>Errors</h2>
 *
 * <ul>
 *   <li>A librdmacm call that fails throws {@link io.jrdma.ibverbs.RdmaException} with the function's name and
 *       {@code errno} (e.g. {@code rdma_bind_addr}, {@code EADDRINUSE}).</li>
 *   <li>An operation that ends in a failure event (address or route error, unreachable, rejected, ...) or in no
 *       event within its timeout throws {@link io.jrdma.rdmacm.CmEventException}, whose
 *       {@link io.jrdma.rdmacm.CmEventException#event()} is that event ({@code null} after a timeout,
 *       {@code ETIMEDOUT}).</li>
 *   <li>An {@link io.jrdma.rdmacm.RdmaConnection} operation on a connection that either side closed throws
 *       {@link io.jrdma.rdmacm.ConnectionClosedException} ({@code ECONNRESET}); a request that fails for another
 *       reason throws {@link io.jrdma.ibverbs.RdmaException} and leaves the connection broken.</li>
 *   <li>Bad arguments (private data longer than the message carries, out-of-range timeouts, depths and sizes)
 *       throw {@link java.lang.IllegalArgumentException} before any native call.</li>
 *   <li>Nothing a peer sends throws: an event holds all the private data the peer sent (up to
 *       {@link io.jrdma.rdmacm.ConnectionParameters#MAX_PRIVATE_DATA} bytes, which an iWARP peer may send), a path
 *       a connect request named with an MTU that is none of the verbs' is left out of
 *       {@link io.jrdma.rdmacm.CmId#paths()}, and a message an {@link io.jrdma.rdmacm.RdmaConnection} cannot read is
 *       dropped, its receive posted again, and counted
 *       ({@link io.jrdma.rdmacm.RdmaConnection#malformedMessages()}).</li>
 * </ul>
 */
package io.jrdma.rdmacm;
