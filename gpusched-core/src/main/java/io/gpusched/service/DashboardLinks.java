package io.gpusched.service;

import java.util.Optional;

/**
 * What the {@code dashboard} op answers: each user's own address of the web dashboard that runs beside
 * a service, token included. The service itself knows nothing of the dashboard (it lives in the CLI);
 * the CLI hands this to {@link ServiceServer#start(io.gpusched.Scheduler, java.nio.file.Path,
 * ServiceServer.Access, Optional, Optional)}. The user named is the caller the kernel named, so a link
 * is only ever given to someone the socket serves.
 */
@FunctionalInterface
public interface DashboardLinks {
    /**
     * @param user the caller, as the kernel names them ({@code SO_PEERCRED})
     * @return the dashboard's URL with that user's token, e.g. {@code http://127.0.0.1:8765/?token=...};
     *     empty when the dashboard does not serve them (then the op answers {@code not_served})
     */
    Optional<String> urlFor(String user);
}
