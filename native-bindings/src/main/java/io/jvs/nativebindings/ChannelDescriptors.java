package io.jvs.nativebindings;

import java.lang.reflect.Method;
import java.nio.channels.Channel;
import java.util.OptionalInt;

/**
 * The file descriptor under a JDK socket channel, for the few socket options the JDK does not offer (such as
 * {@code SO_PEERGROUPS}, see {@link PeerCredentials}). The JDK keeps it behind {@code sun.nio.ch.SelChImpl},
 * which the launcher exports to jvs ({@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}); without that
 * export the descriptor is not available and callers fall back to what the JDK gives.
 */
public final class ChannelDescriptors
{
    private static final Method FD_VAL = lookup();

    private ChannelDescriptors()
    {
    }

    private static Method lookup()
    {
        if (!Object.class.getModule().isExported("sun.nio.ch", ChannelDescriptors.class.getModule()))
        {
            return null;
        }
        try
        {
            return Class.forName("sun.nio.ch.SelChImpl").getMethod("getFDVal");
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            return null;
        }
    }

    /** @return whether descriptors can be had (the JDK's package is exported to jvs). */
    public static boolean available()
    {
        return FD_VAL != null;
    }

    /**
     * @param channel an open socket channel of the default provider.
     * @return its descriptor, or empty when the JDK's internals are not exported or the channel is another kind.
     */
    public static OptionalInt of(final Channel channel)
    {
        if (FD_VAL == null || !FD_VAL.getDeclaringClass().isInstance(channel))
        {
            return OptionalInt.empty();
        }
        try
        {
            return OptionalInt.of((int)FD_VAL.invoke(channel));
        }
        catch (final ReflectiveOperationException ex)
        {
            return OptionalInt.empty();
        }
    }
}
