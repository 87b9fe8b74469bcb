package io.jvs.forwarder.daemon;

/**
 * {@link XdpFlowOffloadTest#leastAllocatedRound} in a fresh JVM, as the daemon's is: prints the result on a line of
 * its own. Root only (BPF maps).
 */
public final class OffloadAllocationChild
{
    private OffloadAllocationChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final XdpFlowOffloadTest rig = new XdpFlowOffloadTest();
        rig.setUp();
        try
        {
            System.out.println("least allocated by a round: " + rig.leastAllocatedRound() + " B");
        }
        finally
        {
            rig.tearDown();
        }
    }
}
