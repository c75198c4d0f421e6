package io.jrdma.netty.testsuite;

import io.jrdma.netty.RdmaServerSocketChannel;
import io.jrdma.netty.RdmaSocketChannel;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.testsuite.transport.AbstractSingleThreadEventLoopTest;
import io.netty.util.concurrent.AutoScalingEventExecutorChooserFactory;
import io.netty.util.concurrent.EventExecutorChooserFactory;

import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Netty's {@link AbstractSingleThreadEventLoopTest} over the transport's {@code RdmaIoHandler}, as Netty's NIO, epoll
 * and io_uring loops run it: channels registered and counted, shutdowns before and after the loop started, scheduled
 * and cancelled tasks, and an auto-scaling group that suspends an idle loop and resumes it on a new thread for a task
 * (loops that only run tasks open no worker; a device test of the transport's own suspends one that ran a channel).
 */
class RdmaIoEventLoopDeviceTest extends AbstractSingleThreadEventLoopTest implements OverRdma {
    /**
     * Netty's chooser for the auto-scaling tests, with a window of 500 ms instead of 100 ms on an emulated CPU: there,
     * when a loop still opened its worker as it started, a start took so long that the group suspended the loop that
     * had started first, idle for two windows, before the test could count both as started. A loop's start is now a
     * thread's, but its first tasks still run code the emulated CPU has not compiled, so the margin stays.
     */
    private static final EventExecutorChooserFactory CHOOSER = EmulatedCpu.detected()
            ? new AutoScalingEventExecutorChooserFactory(SCALING_MIN_THREADS, SCALING_MAX_THREADS, 500,
                    TimeUnit.MILLISECONDS, SCALEDOWN_THRESHOLD, SCALEUP_THRESHOLD, 2, 2, SCALING_PATIENCE_CYCLES)
            : AUTO_SCALING_CHOOSER_FACTORY;

    @Override
    protected EventLoopGroup newEventLoopGroup() {
        return new MultiThreadIoEventLoopGroup(RdmaPermutation.handlers());
    }

    @Override
    protected EventLoopGroup newAutoScalingEventLoopGroup() {
        return new MultiThreadIoEventLoopGroup(SCALING_MAX_THREADS, (Executor) null, CHOOSER,
                RdmaPermutation.handlers());
    }

    @Override
    protected Channel newChannel() {
        return new RdmaSocketChannel();
    }

    @Override
    protected Class<? extends ServerChannel> serverChannelClass() {
        return RdmaServerSocketChannel.class;
    }
}
