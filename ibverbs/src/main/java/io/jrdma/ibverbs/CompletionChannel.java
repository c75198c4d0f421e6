package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_comp_channel;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.Fd;
import io.jrdma.ibverbs.internal.ResourceGuard;
import io.jrdma.ibverbs.internal.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.time.Duration;

/**
 * A completion channel ({@code struct ibv_comp_channel}): where armed completion queues report "there is a
 * completion". Waiting is poll(2) on its file descriptor with a timeout, interruptible, fine on virtual threads.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.CompletionSnippets region=channel}
 */
@SuppressWarnings("restricted")
public final class CompletionChannel implements AutoCloseable {
    private static final MethodHandle CREATE = Errno.capturing(
            ibverbs_h.ibv_create_comp_channel$address(), ibverbs_h.ibv_create_comp_channel$descriptor());
    private static final MethodHandle GET_CQ_EVENT = Errno.capturing(
            ibverbs_h.ibv_get_cq_event$address(), ibverbs_h.ibv_get_cq_event$descriptor());

    final ResourceGuard guard;
    private final Context context;
    private final MemorySegment channel;
    private final int fd;
    private final ObjectsByAddress<CompletionQueue> queues = new ObjectsByAddress<>();
    /** Made and freed by someone else (see {@link #adopt}): never destroyed natively. */
    private final boolean adopted;

    CompletionChannel(Context context) throws RdmaException {
        this(context, Verbs.pointer("ibv_create_comp_channel", CREATE, context.segment()), false);
    }

    private CompletionChannel(Context context, MemorySegment channel, boolean adopted) {
        this.guard = new ResourceGuard(this, ResourceGuard.Lifecycle.of(this::destroy, this::releaseIfLeaked));
        this.context = context;
        this.channel = channel.reinterpret(ibv_comp_channel.sizeof());
        this.adopted = adopted;
        this.fd = ibv_comp_channel.fd(this.channel);
        Fd.setNonBlocking(fd);
    }

    /** The channel over {@code channel}, which something other than libibverbs created and will destroy. */
    static CompletionChannel adopt(Context context, MemorySegment channel) {
        return ResourceGuard.create(() -> new CompletionChannel(context, channel, true), c -> c.guard, context.guard);
    }

    /**
     * Waits for the next completion event and acknowledges it ({@code ibv_get_cq_event} +
     * {@code ibv_ack_cq_events}).
     *
     * @param timeout how long to wait; {@code null} waits forever
     * @return the queue that has completions (re-arm it with {@link CompletionQueue#requestNotification} before
     *         polling it empty), or {@code null} if the timeout passed
     * @throws RdmaException         if {@code ibv_get_cq_event} fails
     * @throws InterruptedException  if the waiting thread is interrupted
     * @throws IllegalStateException if the channel is closed, or closed by another thread while this one waits
     */
    public CompletionQueue await(Duration timeout) throws RdmaException, InterruptedException {
        guard.checkOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cqOut = arena.allocate(ValueLayout.ADDRESS);
            MemorySegment ctxOut = arena.allocate(ValueLayout.ADDRESS);
            MemorySegment state = Errno.allocateState(arena);
            if (!guard.awaitEvent(fd, timeout, "ibv_get_cq_event", state,
                    () -> (int) GET_CQ_EVENT.invokeExact(state, channel, cqOut, ctxOut))) {
                return null;
            }
            MemorySegment cq = cqOut.get(ValueLayout.ADDRESS, 0);
            ibverbs_h.ibv_ack_cq_events(cq, 1);
            // Every CQ of this channel is attached at creation, and detached only after it is destroyed.
            return queues.get(cq.address());
        }
    }

    /**
     * The file descriptor, for callers that multiplex it themselves.
     *
     * @return the channel's file descriptor, non-blocking; readable when an event is pending. Do not close it.
     */
    public int fd() {
        guard.checkOpen();
        return fd;
    }

    void attach(CompletionQueue cq) {
        queues.put(cq.segment(), cq);
    }

    void detach(CompletionQueue cq) {
        queues.remove(cq.segment(), cq);
    }

    MemorySegment segment() {
        return channel;
    }

    /** Frees a leaked channel; it must not refer to this object. */
    private Runnable releaseIfLeaked() {
        MemorySegment leaked = channel;
        return adopted ? null : () -> ibverbs_h.ibv_destroy_comp_channel(leaked);
    }

    private void destroy() throws RdmaException {
        if (!adopted) {
            Verbs.check("ibv_destroy_comp_channel", ibverbs_h.ibv_destroy_comp_channel(channel));
        }
    }

    /** {@return whether {@link #close()} has completed} */
    public boolean isClosed() {
        return guard.isClosed();
    }

    /**
     * Releases the native object. A second call does nothing.
     *
     * @throws IllegalStateException if objects created from this one are still open (nothing is closed then)
     * @throws RdmaException         if the native destroy verb fails (it stays open)
     * @throws WrongThreadException  if it is confined to another thread (it stays open)
     */
    @Override
    public void close() throws RdmaException {
        guard.close();
    }

    @Override
    public String toString() {
        return "CompletionChannel[" + context.device().name() + ", fd " + fd + "]";
    }
}
