/* jextract input for package io.jrdma.bindings.rsocket: librdmacm's rsockets, and the libc socket
   calls and constants that give ordinary TCP sockets the same shape (rpoll takes both kinds of fd). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <rdma/rsocket.h>
