package io.jvs.nativebindings.bpf;

import io.jvs.nativebindings.Syscalls;

/**
 * A process that holds a tcx ingress link for {@link TcxLinkTest}, started inside a test namespace: it attaches
 * the drop-all program to the device named by its argument, prints {@code attached <program id>} and waits for
 * the end of its input (or to be killed).
 */
public final class TcxAttachChild
{
    private TcxAttachChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Syscalls syscalls = Syscalls.create();
        try (BpfProgram program = TcPrograms.loadDropAll(syscalls);
             TcxLink link = TcxLink.attach(syscalls, program, args[0], TcxDirection.INGRESS))
        {
            System.out.println("attached " + program.id());
            System.out.flush();
            while (System.in.read() >= 0)
            {
                // Wait for the end of input.
            }
        }
    }
}
