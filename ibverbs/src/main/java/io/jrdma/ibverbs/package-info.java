/**
 * The verbs API of libibverbs: devices, contexts and the objects created from them, each a Java object that owns
 * one native object and releases it on {@code close()}.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=lifetime}
 *
 * <h2>Lifetimes</h2>
 *
 * <p>Objects form a tree rooted at a {@link io.jrdma.ibverbs.Context}; a child holds its parents open:
 * <ul>
 *   <li>a {@link io.jrdma.ibverbs.Context} owns its {@link io.jrdma.ibverbs.ProtectionDomain}s,
 *       {@link io.jrdma.ibverbs.CompletionChannel}s and {@link io.jrdma.ibverbs.CompletionQueue}s (a completion queue
 *       is also a child of its channel);</li>
 *   <li>a {@link io.jrdma.ibverbs.ProtectionDomain} owns its {@link io.jrdma.ibverbs.MemoryRegion}s,
 *       {@link io.jrdma.ibverbs.MemoryWindow}s, {@link io.jrdma.ibverbs.SharedReceiveQueue}s and
 *       {@link io.jrdma.ibverbs.AddressHandle}s;</li>
 *   <li>a {@link io.jrdma.ibverbs.QueuePair} is a child of its protection domain, of its completion queues and of its
 *       shared receive queue, if any.</li>
 * </ul>
 *
 * <p>Close children before their parents: try-with-resources does it when the parents are declared first. Closing an
 * object whose children are still open throws {@link java.lang.IllegalStateException} naming them, and closes
 * nothing; a close never takes children down with it. {@code close()} is idempotent. Any other use of a closed object
 * (a post, a poll, a query, creating a child) throws {@link java.lang.IllegalStateException}; nothing ever touches
 * freed native memory. Closing a shared object while other threads post or poll on it waits for the calls in flight,
 * and the calls after it fail.
 *
 * <p>A {@link io.jrdma.ibverbs.MemoryRegion} registered over a segment of an {@link java.lang.foreign.Arena} is
 * deregistered when that arena closes, before the memory is freed; one from
 * {@link io.jrdma.ibverbs.ProtectionDomain#allocate} owns its memory and frees it on close. Work requests
 * ({@link io.jrdma.ibverbs.SendWorkRequest}, {@link io.jrdma.ibverbs.ReceiveWorkRequest}) and
 * {@link io.jrdma.ibverbs.WorkCompletions} are plain objects in an arena of their own (or one given), with nothing to
 * close. Any object that becomes unreachable without being closed is reported (a warning naming it and where it was
 * created; {@code -Djrdma.leakDetection=all}, {@code sampled} or {@code off} sets how much) and freed, after the objects
 * made from it; a parent never keeps a leaked child alive. The context a connection manager id
 * hands out ({@code CmId.context()}) belongs to librdmacm: closing it releases only the Java side.
 *
 * <h2>Threads</h2>
 *
 * <p>Contexts, protection domains, memory regions and windows, address handles, shared receive queues and channels
 * may be used from any thread. Queue pairs and completion queues choose at creation
 * ({@link io.jrdma.ibverbs.ThreadConfinement}):
 * <ul>
 *   <li>{@link io.jrdma.ibverbs.ThreadConfinement#SHARED} (the default): any thread may post, poll and close. Threads
 *       may post to one queue pair at once (each thread's requests keep their order) and poll one completion queue at
 *       once (each completion goes to one of them). State changes of a queue pair belong to one thread at a time.</li>
 *   <li>{@link io.jrdma.ibverbs.ThreadConfinement#CONFINED}: only the creating thread may use or close the object;
 *       every other thread gets {@link java.lang.WrongThreadException} and changes nothing. Its data path skips the
 *       atomics that let a close on another thread wait for it.</li>
 * </ul>
 *
 * <p>Work requests and {@link io.jrdma.ibverbs.WorkCompletions} are not thread-safe: give each thread its own, and
 * reuse them. A batch of {@link io.jrdma.ibverbs.ExtendedPost} or {@link io.jrdma.ibverbs.ExtendedPoll} belongs to
 * the thread that started it, one batch per queue at a time.
 *
 * <p>Waiting never blocks a carrier thread in native code: {@link io.jrdma.ibverbs.CompletionChannel#await} and
 * {@link io.jrdma.ibverbs.Context#awaitAsyncEvent} poll the descriptor with a timeout, are interruptible and suit
 * virtual threads; closing the channel or context from another thread ends the wait with
 * {@link java.lang.IllegalStateException}. A completion queue raises one channel event per
 * {@link io.jrdma.ibverbs.CompletionQueue#requestNotification arming}: re-arm, then poll until empty. Asynchronous
 * events (port changes, a queue pair's fatal error, ...) go to {@link io.jrdma.ibverbs.Context#onAsyncEvent}
 * listeners, called one at a time on one virtual thread per context, or to
 * {@link io.jrdma.ibverbs.Context#awaitAsyncEvent} on a context without listeners.
 *
 * <h2>Errors</h2>
 *
 * <ul>
 *   <li>A native call that fails throws {@link io.jrdma.ibverbs.RdmaException}, a checked
 *       {@link java.io.IOException} carrying the verb's name and its {@code errno} (e.g. {@code ibv_reg_mr},
 *       {@code ENOMEM}).</li>
 *   <li>Bad arguments (sizes, ranges, port numbers, access rights that do not fit together, objects of another
 *       protection domain) throw {@link java.lang.IllegalArgumentException} (or
 *       {@link java.lang.IndexOutOfBoundsException} for a range outside a region) before any native call.</li>
 *   <li>A closed object, an operation its type or state does not allow, or a close with children open throws
 *       {@link java.lang.IllegalStateException}; a confined object used from another thread,
 *       {@link java.lang.WrongThreadException}; a feature the device or jrdma lacks (on-demand paging, XRC, huge pages
 *       the kernel cannot give), {@link java.lang.UnsupportedOperationException}.</li>
 *   <li>A posted request that fails is not an exception: its completion carries a
 *       {@link io.jrdma.ibverbs.WcStatus} other than {@link io.jrdma.ibverbs.WcStatus#SUCCESS}. A failed request
 *       of a connected queue pair moves it to {@link io.jrdma.ibverbs.QpState#ERR}, and the requests after it complete
 *       with {@link io.jrdma.ibverbs.WcStatus#WR_FLUSH_ERR}.</li>
 * </ul>
 *
 * <p>Run with {@code --enable-native-access=io.jrdma.bindings,io.jrdma.ibverbs} (or {@code ALL-UNNAMED} on the class
 * path).
 */
package io.jrdma.ibverbs;
