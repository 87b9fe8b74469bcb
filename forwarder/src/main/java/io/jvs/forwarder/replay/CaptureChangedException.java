package io.jvs.forwarder.replay;

import java.nio.file.FileSystemException;
import java.nio.file.Path;

/**
 * The capture shrank while it was being replayed (another process truncated or rewrote it): the reader maps
 * the file, and a read past the new end faults. HotSpot turns that fault of an unsafe access into an
 * {@link InternalError} ("a fault occurred in an unsafe memory access operation"), which {@link Replay#run}
 * catches at the boundary of the read loop and reports as this, so the JVM neither crashes nor prints a
 * stack trace. What was written so far is not to be kept.
 */
public final class CaptureChangedException extends FileSystemException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param capture    the capture.
     * @param mappedSize its size when it was opened, or -1 if it changed while being opened.
     * @param sizeNow    its size now, or -1 if it is gone.
     */
    public CaptureChangedException(final Path capture, final long mappedSize, final long sizeNow)
    {
        super(capture.toString(), null, sizeNow < 0 ? "removed while it was being read" : mappedSize < 0 ?
            "changed while it was being opened (" + sizeNow + " bytes now: truncated by another process?)" :
            "changed while it was being read (" + mappedSize + " bytes when opened, " + sizeNow +
            " now: truncated by another process?)");
    }
}
