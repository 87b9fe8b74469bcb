package io.jvs.core.pipeline;

/**
 * Hands the current {@link DataPlane} from the control plane to the workers: one volatile store to
 * publish, one volatile load per burst to read.
 */
public final class DataPlanePublisher
{
    private volatile DataPlane current;

    /**
     * @param initial the first snapshot.
     */
    public DataPlanePublisher(final DataPlane initial)
    {
        this.current = initial;
    }

    public DataPlane current()
    {
        return current;
    }

    /**
     * @param next the snapshot workers use from their next burst on.
     */
    public void publish(final DataPlane next)
    {
        current = next;
    }
}
