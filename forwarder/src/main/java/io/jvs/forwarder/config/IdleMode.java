package io.jvs.forwarder.config;

/**
 * What a worker does after a poll of its ports found no frame: the {@code idle} statement. The choice trades
 * a core's time for latency; the daemon maps each mode to its idle strategy.
 */
public enum IdleMode
{
    /** Spin while frames keep coming, then back off in steps to sleeping on the ports when they stay quiet. */
    ADAPTIVE("adaptive"),
    /** Busy-spin: the lowest latency, one core at 100% whatever the load. */
    SPIN("spin"),
    /** Yield the core to other threads between polls. */
    YIELD("yield"),
    /** Spin, then yield, then park for growing periods, as Agrona's BackoffIdleStrategy. */
    BACKOFF("backoff"),
    /** Sleep in poll() on the ports until a frame arrives: no CPU when idle, the highest latency. */
    WAIT("wait");

    private final String word;

    IdleMode(final String word)
    {
        this.word = word;
    }

    /**
     * @return the word the configuration language uses for it.
     */
    public String word()
    {
        return word;
    }
}
