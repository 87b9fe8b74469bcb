package io.jvs.tools.bench;

import java.util.concurrent.CountDownLatch;

/**
 * Set by Ctrl-C / SIGTERM so the loop ends and the summary is printed before the JVM exits.
 */
final class StopSignal implements java.util.function.BooleanSupplier
{
    private final CountDownLatch done = new CountDownLatch(1);
    private final Thread hook = new Thread(this::awaitLoop, "bench-stop");
    private volatile boolean stopping;

    static StopSignal onShutdown()
    {
        final StopSignal signal = new StopSignal();
        Runtime.getRuntime().addShutdownHook(signal.hook);
        return signal;
    }

    @Override
    public boolean getAsBoolean()
    {
        return stopping;
    }

    void finished()
    {
        done.countDown();
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException ignored)
        {
            // The JVM is already shutting down: the hook is waiting for us, and now returns.
        }
    }

    private void awaitLoop()
    {
        stopping = true;
        try
        {
            done.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
