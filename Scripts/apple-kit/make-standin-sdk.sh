#!/bin/bash
# make-standin-sdk.sh OUTDIR [--platforms "macosx iphonesimulator ..."] [--warm TRIPLE]...
#
# Builds a stand-in Apple SDK for TYPE-CHECKING Swift packages for Apple platforms on Linux,
# from the Swift toolchain installed on this machine (nothing is downloaded, nothing shipped):
#
#   OUTDIR/<Xcode SDK name>.sdk/usr/lib/swift/<Module>.swiftmodule/<arch>-apple-<os>[-simulator].swiftinterface
#       Swift, _Concurrency, _StringProcessing, RegexBuilder, SwiftOnoneSupport, Observation,
#       Synchronization, _Volatile, Distributed, Testing: the toolchain's own Linux
#       .swiftinterface files, re-targeted by sed (see derive_interface below). They carry the
#       real Apple @available attributes of the standard library, so the real type checker
#       reports "only available in macOS 15.0 or newer" exactly as Xcode would.
#       Darwin, Dispatch, Foundation, XCTest: small hand-written stand-in interfaces
#       (declarations only, no bodies) written by this script, see the stub_* functions.
#   OUTDIR/<sdk>/usr/include/...: stand-in C headers for the Darwin C module (Darwin's types,
#       struct stat, errno, signals, pthread, os_unfair_lock), see write_c_headers.
#   OUTDIR/ModuleCache: the implicit module cache apple-typecheck.sh uses (filled by --warm).
#
# Platforms (default: all of them; each is only a few MB of sed output, the cost is the
# first compile of the standard library for a triple, ~20 s, paid by --warm or by the
# first apple-typecheck.sh run for that triple):
#   macosx iphoneos iphonesimulator appletvos appletvsimulator watchos watchsimulator xros xrsimulator
#
# Environment: SWIFT_FRONTEND (default: swift-frontend on PATH, else /opt/swift/usr/bin/swift-frontend),
#   APPLE_KIT_LOCK (default empty: no lock; a file path: serialize compiles with flock -o) - every compile runs under
#   `flock -o $APPLE_KIT_LOCK`, JOBS (default: nproc) - parallel --warm compiles.
set -euo pipefail

usage() { sed -n 2p "$0" >&2; exit 2; }
[ $# -ge 1 ] || usage
OUT=$1; shift
PLATFORMS="macosx iphoneos iphonesimulator appletvos appletvsimulator watchos watchsimulator xros xrsimulator"
WARM=()
while [ $# -gt 0 ]; do
  case $1 in
    --platforms) PLATFORMS=$2; shift 2 ;;
    --warm) WARM+=("$2"); shift 2 ;;
    *) usage ;;
  esac
done

SWIFT_FRONTEND=${SWIFT_FRONTEND:-$(command -v swift-frontend || echo /opt/swift/usr/bin/swift-frontend)}
[ -x "$SWIFT_FRONTEND" ] || { echo "make-standin-sdk: no swift-frontend ($SWIFT_FRONTEND)" >&2; exit 1; }
USR=$(dirname "$(dirname "$(readlink -f "$SWIFT_FRONTEND")")")
LINUX=$USR/lib/swift/linux
HOSTIF=$(ls "$LINUX"/Swift.swiftmodule/*-unknown-linux-gnu.swiftinterface 2>/dev/null | grep -v private | head -1 || true)
[ -n "$HOSTIF" ] || { echo "make-standin-sdk: no Linux Swift.swiftinterface under $LINUX" >&2; exit 1; }
HOSTTRIPLE=$(basename "$HOSTIF" .swiftinterface)   # x86_64-unknown-linux-gnu or aarch64-unknown-linux-gnu
LOCK=${APPLE_KIT_LOCK-}
JOBS=${JOBS:-$(nproc)}
locked() { if [ -n "$LOCK" ]; then mkdir -p "$(dirname "$LOCK")"; flock -o "$LOCK" "$@"; else "$@"; fi; }

mkdir -p "$OUT"
OUT=$(readlink -f "$OUT")

# platform -> SDK dir name | triple os | environment suffix | archs | deployment target written
# into the interfaces (the importer compiles them for the client's own triple anyway)
plat_info() {
  case $1 in
    macosx)           echo "MacOSX macos - x86_64,arm64 10.13" ;;
    iphoneos)         echo "iPhoneOS ios - arm64 12.0" ;;
    iphonesimulator)  echo "iPhoneSimulator ios simulator x86_64,arm64 13.0" ;;
    appletvos)        echo "AppleTVOS tvos - arm64 12.0" ;;
    appletvsimulator) echo "AppleTVSimulator tvos simulator x86_64,arm64 13.0" ;;
    watchos)          echo "WatchOS watchos - arm64,arm64_32 5.0" ;;
    watchsimulator)   echo "WatchSimulator watchos simulator x86_64,arm64 7.0" ;;
    xros)             echo "XROS xros - arm64 1.0" ;;
    xrsimulator)      echo "XRSimulator xros simulator x86_64,arm64 1.0" ;;
    *) echo "make-standin-sdk: unknown platform $1" >&2; exit 2 ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# 1. The toolchain's own interfaces, re-targeted.
#    - the `-target <host linux triple>` of the swift-module-flags line becomes the Apple triple;
#    - `-disable-availability-checking` is added to that line: it applies only while the
#      compiler builds the interface itself (the stdlib's inlinable code calls newer API
#      behind its own checks, which Linux never verified); the package being checked is still
#      checked against every @available attribute in these files;
#    - `-O` becomes `-Onone` on that line: the modules are built for type-checking only, and
#      skipping the optimizer on their inlinable code makes the first build per triple ~40%
#      cheaper;
#    - `@backDeployed(before: ...)` lines are dropped (Linux prints those functions without
#      their bodies, which an Apple target then rejects: "'@backDeployed' requires that ...
#      have a body"); the declaration's @available line stays, so clients see the same
#      availability;
#    - for arm64 triples built from an x86_64 host's files, Swift gets two declarations of
#      x86-only C shims its Float80 code calls;
#    - Synchronization gets one declaration of a Linux C shim its inlinable Mutex code calls;
#    - `import Glibc` becomes `import Darwin` (Observation, Synchronization, Distributed import
#      the platform's C library; Glibc must not exist here, or `#if canImport(Glibc)` would take
#      the Linux branch of the code being checked).
# ---------------------------------------------------------------------------------------------
DERIVED="Swift _Concurrency _StringProcessing RegexBuilder SwiftOnoneSupport Observation Synchronization _Volatile Distributed Testing"

derive_interface() { # MODULE SRC DEST TRIPLE
  sed -e "s/-target $HOSTTRIPLE/-target $4/" \
      -e '/^\/\/ swift-module-flags:/s/^\/\/ swift-module-flags: /&-disable-availability-checking /' \
      -e '/^\/\/ swift-module-flags:/s/ -O / -Onone /' \
      -e '/^[[:space:]]*@backDeployed(/d' \
      -e 's/^import Glibc$/import Darwin/' \
      "$2" > "$3"
  if [ "$1" = Swift ] && [ "${HOSTTRIPLE%%-*}" = x86_64 ] && [ "${4%%-*}" != x86_64 ]; then
    # An x86_64 host's stdlib has Float80, whose inlinable code calls two SwiftShims
    # functions that exist only for x86 (LibcShims.h); declare them so the interface builds
    # for arm64. (So Float80 is wrongly visible to code checked for arm64: Apple has none.)
    { echo '@usableFromInline internal func _stdlib_remainderl(_ x: Swift.Float80, _ y: Swift.Float80) -> Swift.Float80'
      echo '@usableFromInline internal func _stdlib_squareRootl(_ x: Swift.Float80) -> Swift.Float80'; } >> "$3"
  fi
  if [ "$1" = Synchronization ]; then
    # Linux's Mutex calls a Linux-only C shim (_SynchronizationShims.h, __linux__ only) from
    # inlinable code; declare it so the interface builds. Mutex/Atomic keep their @available.
    echo '@usableFromInline internal func _swift_stdlib_gettid() -> Swift.UInt32' >> "$3"
  fi
}

# ---------------------------------------------------------------------------------------------
# 2. Stand-in C headers: the Darwin C module. Types are Darwin's LP64 ones (mode_t is 16 bits,
#    off_t 64, sigset_t a 32-bit integer, struct stat has st_mtimespec, ...), values are
#    Darwin's (<sys/errno.h>, <sys/signal.h>, <sys/fcntl.h>); declarations are the subset a
#    package like FluxCapacitor calls, plus their obvious neighbours. Variadic functions (open,
#    fcntl) are not importable, as on Apple: the Darwin overlay below declares them for Swift.
# ---------------------------------------------------------------------------------------------
# errno values of Darwin's <sys/errno.h>
DARWIN_ERRNO="EPERM=1 ENOENT=2 ESRCH=3 EINTR=4 EIO=5 ENXIO=6 E2BIG=7 ENOEXEC=8 EBADF=9 ECHILD=10
EDEADLK=11 ENOMEM=12 EACCES=13 EFAULT=14 ENOTBLK=15 EBUSY=16 EEXIST=17 EXDEV=18 ENODEV=19
ENOTDIR=20 EISDIR=21 EINVAL=22 ENFILE=23 EMFILE=24 ENOTTY=25 ETXTBSY=26 EFBIG=27 ENOSPC=28
ESPIPE=29 EROFS=30 EMLINK=31 EPIPE=32 EDOM=33 ERANGE=34 EAGAIN=35 EINPROGRESS=36 EALREADY=37
ENOTSOCK=38 EDESTADDRREQ=39 EMSGSIZE=40 EPROTOTYPE=41 ENOPROTOOPT=42 EPROTONOSUPPORT=43
ESOCKTNOSUPPORT=44 ENOTSUP=45 EPFNOSUPPORT=46 EAFNOSUPPORT=47 EADDRINUSE=48 EADDRNOTAVAIL=49
ENETDOWN=50 ENETUNREACH=51 ENETRESET=52 ECONNABORTED=53 ECONNRESET=54 ENOBUFS=55 EISCONN=56
ENOTCONN=57 ESHUTDOWN=58 ETOOMANYREFS=59 ETIMEDOUT=60 ECONNREFUSED=61 ELOOP=62 ENAMETOOLONG=63
EHOSTDOWN=64 EHOSTUNREACH=65 ENOTEMPTY=66 EPROCLIM=67 EUSERS=68 EDQUOT=69 ESTALE=70 EREMOTE=71
EBADRPC=72 ERPCMISMATCH=73 EPROGUNAVAIL=74 EPROGMISMATCH=75 EPROCUNAVAIL=76 ENOLCK=77 ENOSYS=78
EFTYPE=79 EAUTH=80 ENEEDAUTH=81 EPWROFF=82 EDEVERR=83 EOVERFLOW=84 EBADEXEC=85 EBADARCH=86
ESHLIBVERS=87 EBADMACHO=88 ECANCELED=89 EIDRM=90 ENOMSG=91 EILSEQ=92 ENOATTR=93 EBADMSG=94
EMULTIHOP=95 ENODATA=96 ENOLINK=97 ENOSR=98 ENOSTR=99 EPROTO=100 ETIME=101 EOPNOTSUPP=102
ENOPOLICY=103 ENOTRECOVERABLE=104 EOWNERDEAD=105 EQFULL=106"

write_c_headers() { # INCLUDE_DIR
  local I=$1
  mkdir -p "$I/sys" "$I/os"
  cat > "$I/module.modulemap" <<'EOF'
// Stand-in for the SDK's Darwin module (usr/include/module.modulemap), which the Swift
// overlay Darwin.swiftmodule re-exports.
module Darwin [system] [extern_c] {
  header "sys/types.h"
  header "sys/syslimits.h"
  header "limits.h"
  header "errno.h"
  header "time.h"
  header "sys/stat.h"
  header "fcntl.h"
  header "sys/file.h"
  header "unistd.h"
  header "stdio.h"
  header "stdlib.h"
  header "string.h"
  header "signal.h"
  header "pthread.h"
  header "os/lock.h"
  export *
}
EOF
  cat > "$I/sys/types.h" <<'EOF'
/* stand-in for Darwin's <sys/types.h>: Darwin's LP64 typedefs (sys/_types.h, arm/_types.h) */
#ifndef _STANDIN_SYS_TYPES_H
#define _STANDIN_SYS_TYPES_H
#include <stddef.h>
#include <stdint.h>
typedef int32_t   dev_t;      /* __darwin_dev_t */
typedef uint16_t  mode_t;     /* __darwin_mode_t: 16 bits on Darwin, 32 on Linux */
typedef uint16_t  nlink_t;
typedef uint64_t  ino_t;      /* __darwin_ino64_t (64-bit inodes) */
typedef uint32_t  uid_t;
typedef uint32_t  gid_t;
typedef int32_t   pid_t;
typedef int64_t   off_t;
typedef int64_t   blkcnt_t;
typedef int32_t   blksize_t;
typedef long      ssize_t;
typedef long      time_t;     /* __darwin_time_t */
typedef int32_t   suseconds_t;
typedef uint32_t  useconds_t;
typedef uint32_t  sigset_t;   /* __darwin_sigset_t: an integer on Darwin, a struct on Linux */
#endif
EOF
  cat > "$I/sys/syslimits.h" <<'EOF'
#ifndef _STANDIN_SYS_SYSLIMITS_H
#define _STANDIN_SYS_SYSLIMITS_H
#define PATH_MAX 1024   /* Darwin: 1024 (Linux: 4096) */
#define NAME_MAX 255
#define OPEN_MAX 10240
#endif
EOF
  cat > "$I/limits.h" <<'EOF'
/* clang's own <limits.h> includes this one (include_next) for the POSIX limits */
#ifndef _STANDIN_LIMITS_H
#define _STANDIN_LIMITS_H
#include <sys/syslimits.h>
#endif
EOF
  { echo '/* stand-in for Darwin <errno.h>: values of <sys/errno.h> */'
    echo '#ifndef _STANDIN_ERRNO_H'
    echo '#define _STANDIN_ERRNO_H'
    echo 'extern int *__error(void);'
    echo '#define errno (*__error())'
    for kv in $DARWIN_ERRNO; do echo "#define ${kv%%=*} ${kv#*=}"; done
    echo '#define EWOULDBLOCK EAGAIN'
    echo '#endif'; } > "$I/errno.h"
  cat > "$I/time.h" <<'EOF'
#ifndef _STANDIN_TIME_H
#define _STANDIN_TIME_H
#include <sys/types.h>
struct timespec { time_t tv_sec; long tv_nsec; };
struct timeval { time_t tv_sec; suseconds_t tv_usec; };
time_t time(time_t *);
int nanosleep(const struct timespec *, struct timespec *);
typedef enum { _CLOCK_REALTIME = 0, _CLOCK_MONOTONIC = 6, _CLOCK_UPTIME_RAW = 8 } clockid_t;
int clock_gettime(clockid_t, struct timespec *)
    __attribute__((availability(macos,introduced=10.12))) __attribute__((availability(ios,introduced=10.0)))
    __attribute__((availability(tvos,introduced=10.0))) __attribute__((availability(watchos,introduced=3.0)));
#endif
EOF
  cat > "$I/sys/stat.h" <<'EOF'
/* stand-in for Darwin <sys/stat.h>: struct stat is the 64-bit-inode one (st_mtimespec, not
   Linux's st_mtim); S_IF* are declared by the Darwin overlay as mode_t, as on Apple. */
#ifndef _STANDIN_SYS_STAT_H
#define _STANDIN_SYS_STAT_H
#include <sys/types.h>
#include <time.h>
struct stat {
  dev_t st_dev; mode_t st_mode; nlink_t st_nlink; ino_t st_ino; uid_t st_uid; gid_t st_gid;
  dev_t st_rdev;
  struct timespec st_atimespec; struct timespec st_mtimespec; struct timespec st_ctimespec;
  struct timespec st_birthtimespec;
  off_t st_size; blkcnt_t st_blocks; blksize_t st_blksize;
  uint32_t st_flags; uint32_t st_gen; int32_t st_lspare; int64_t st_qspare[2];
};
int stat(const char *, struct stat *);
int lstat(const char *, struct stat *);
int fstat(int, struct stat *);
int chmod(const char *, mode_t);
int fchmod(int, mode_t);
int mkdir(const char *, mode_t);
mode_t umask(mode_t);
#endif
EOF
  cat > "$I/fcntl.h" <<'EOF'
/* stand-in for Darwin <fcntl.h> (sys/fcntl.h values); open/openat/fcntl are variadic in C,
   so Swift sees the Darwin overlay's versions, as on Apple */
#ifndef _STANDIN_FCNTL_H
#define _STANDIN_FCNTL_H
#include <sys/types.h>
#define O_RDONLY   0x0000
#define O_WRONLY   0x0001
#define O_RDWR     0x0002
#define O_NONBLOCK 0x00000004
#define O_APPEND   0x00000008
#define O_CREAT    0x00000200
#define O_TRUNC    0x00000400
#define O_EXCL     0x00000800
#define O_NOFOLLOW 0x00000100
#define O_DIRECTORY 0x00100000
#define O_CLOEXEC  0x01000000
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_FULLFSYNC 51
#define FD_CLOEXEC 1
#define AT_FDCWD -2
int open(const char *, int, ...);
int openat(int, const char *, int, ...);
int fcntl(int, int, ...);
int creat(const char *, mode_t);
#endif
EOF
  cat > "$I/sys/file.h" <<'EOF'
/* stand-in for Darwin <sys/file.h>: flock(2) and its operations (Darwin's sys/fcntl.h
   values: LOCK_SH 1, LOCK_EX 2, LOCK_NB 4, LOCK_UN 8; Apple's flock(2) man page) */
#ifndef _STANDIN_SYS_FILE_H
#define _STANDIN_SYS_FILE_H
#include <fcntl.h>
#define LOCK_SH 0x01
#define LOCK_EX 0x02
#define LOCK_NB 0x04
#define LOCK_UN 0x08
int flock(int, int);
#endif
EOF
  cat > "$I/unistd.h" <<'EOF'
#ifndef _STANDIN_UNISTD_H
#define _STANDIN_UNISTD_H
#include <sys/types.h>
#define STDIN_FILENO 0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2
#define F_OK 0
#define R_OK 4
#define W_OK 2
#define X_OK 1
int close(int);
ssize_t read(int, void *, size_t);
ssize_t write(int, const void *, size_t);
ssize_t pread(int, void *, size_t, off_t);
ssize_t pwrite(int, const void *, size_t, off_t);
off_t lseek(int, off_t, int);
int fsync(int);
int ftruncate(int, off_t);
int unlink(const char *);
int rmdir(const char *);
int link(const char *, const char *);
int symlink(const char *, const char *);
ssize_t readlink(const char *restrict, char *restrict, size_t);
int access(const char *, int);
char *getcwd(char *, size_t);
int chdir(const char *);
int dup(int);
int dup2(int, int);
int pipe(int [2]);
int isatty(int);
pid_t getpid(void);
uid_t getuid(void);
unsigned int sleep(unsigned int);
int usleep(useconds_t);
void _exit(int) __attribute__((__noreturn__));
#endif
EOF
  cat > "$I/stdio.h" <<'EOF'
#ifndef _STANDIN_STDIO_H
#define _STANDIN_STDIO_H
#include <sys/types.h>
typedef struct __sFILE FILE;
extern FILE *__stdinp;
extern FILE *__stdoutp;
extern FILE *__stderrp;
#define stdin __stdinp
#define stdout __stdoutp
#define stderr __stderrp
#define EOF (-1)
FILE *fopen(const char *restrict, const char *restrict);
int fclose(FILE *);
int fflush(FILE *);
int fputs(const char *restrict, FILE *restrict);
int fputc(int, FILE *);
size_t fwrite(const void *restrict, size_t, size_t, FILE *restrict);
size_t fread(void *restrict, size_t, size_t, FILE *restrict);
int rename(const char *, const char *);
int remove(const char *);
void perror(const char *);
#endif
EOF
  cat > "$I/stdlib.h" <<'EOF'
#ifndef _STANDIN_STDLIB_H
#define _STANDIN_STDLIB_H
#include <sys/types.h>
void *malloc(size_t);
void *calloc(size_t, size_t);
void *realloc(void *, size_t);
void free(void *);
void abort(void) __attribute__((__noreturn__));
void exit(int) __attribute__((__noreturn__));
int atexit(void (*)(void));
char *getenv(const char *);
int setenv(const char *, const char *, int);
int unsetenv(const char *);
char *realpath(const char *restrict, char *restrict);
char *mkdtemp(char *);
int mkstemp(char *);
#endif
EOF
  cat > "$I/string.h" <<'EOF'
#ifndef _STANDIN_STRING_H
#define _STANDIN_STRING_H
#include <sys/types.h>
char *strerror(int);
size_t strlen(const char *);
int strcmp(const char *, const char *);
int strncmp(const char *, const char *, size_t);
char *strdup(const char *);
void *memcpy(void *restrict, const void *restrict, size_t);
void *memmove(void *, const void *, size_t);
void *memset(void *, int, size_t);
int memcmp(const void *, const void *, size_t);
#endif
EOF
  cat > "$I/signal.h" <<'EOF'
/* stand-in for Darwin <signal.h> (sys/signal.h numbers: SIGUSR1 is 30, SIGBUS 10, ...) */
#ifndef _STANDIN_SIGNAL_H
#define _STANDIN_SIGNAL_H
#include <sys/types.h>
#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGEMT 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGBUS 10
#define SIGSEGV 11
#define SIGSYS 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGURG 16
#define SIGSTOP 17
#define SIGTSTP 18
#define SIGCONT 19
#define SIGCHLD 20
#define SIGTTIN 21
#define SIGTTOU 22
#define SIGIO 23
#define SIGXCPU 24
#define SIGXFSZ 25
#define SIGVTALRM 26
#define SIGPROF 27
#define SIGWINCH 28
#define SIGINFO 29
#define SIGUSR1 30
#define SIGUSR2 31
#define SIG_BLOCK 1
#define SIG_UNBLOCK 2
#define SIG_SETMASK 3
typedef void (*sig_t)(int);
void (*signal(int, void (*)(int)))(int);
int raise(int);
int kill(pid_t, int);
int sigemptyset(sigset_t *);
int sigfillset(sigset_t *);
int sigaddset(sigset_t *, int);
int sigdelset(sigset_t *, int);
int sigismember(const sigset_t *, int);
int sigprocmask(int, const sigset_t *restrict, sigset_t *restrict);
int pthread_sigmask(int, const sigset_t *, sigset_t *);
#endif
EOF
  cat > "$I/pthread.h" <<'EOF'
/* stand-in for Darwin <pthread.h>: pthread_t is a pointer (an integer on Linux) */
#ifndef _STANDIN_PTHREAD_H
#define _STANDIN_PTHREAD_H
#include <sys/types.h>
struct _opaque_pthread_t { long __sig; char __opaque[8176]; };
typedef struct _opaque_pthread_t *pthread_t;
typedef struct _opaque_pthread_attr_t { long __sig; char __opaque[56]; } pthread_attr_t;
typedef struct _opaque_pthread_mutex_t { long __sig; char __opaque[56]; } pthread_mutex_t;
typedef struct _opaque_pthread_mutexattr_t { long __sig; char __opaque[8]; } pthread_mutexattr_t;
typedef struct _opaque_pthread_cond_t { long __sig; char __opaque[40]; } pthread_cond_t;
typedef struct _opaque_pthread_condattr_t { long __sig; char __opaque[8]; } pthread_condattr_t;
typedef unsigned long pthread_key_t;
pthread_t pthread_self(void);
int pthread_equal(pthread_t, pthread_t);
int pthread_main_np(void);
int pthread_threadid_np(pthread_t, uint64_t *)
    __attribute__((availability(macos,introduced=10.6))) __attribute__((availability(ios,introduced=3.2)));
int pthread_mutex_init(pthread_mutex_t *, const pthread_mutexattr_t *);
int pthread_mutex_destroy(pthread_mutex_t *);
int pthread_mutex_lock(pthread_mutex_t *);
int pthread_mutex_trylock(pthread_mutex_t *);
int pthread_mutex_unlock(pthread_mutex_t *);
int pthread_cond_init(pthread_cond_t *, const pthread_condattr_t *);
int pthread_cond_destroy(pthread_cond_t *);
int pthread_cond_wait(pthread_cond_t *, pthread_mutex_t *);
int pthread_cond_signal(pthread_cond_t *);
int pthread_cond_broadcast(pthread_cond_t *);
int pthread_key_create(pthread_key_t *, void (*)(void *));
void *pthread_getspecific(pthread_key_t);
int pthread_setspecific(pthread_key_t, const void *);
#endif
EOF
  cat > "$I/os/lock.h" <<'EOF'
/* stand-in for <os/lock.h>: os_unfair_lock, with its SDK availability
   (OS_UNFAIR_LOCK_AVAILABILITY: macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0) */
#ifndef _STANDIN_OS_LOCK_H
#define _STANDIN_OS_LOCK_H
#include <stdint.h>
#include <stdbool.h>
#define OS_UNFAIR_LOCK_AVAILABILITY \
  __attribute__((availability(macos,introduced=10.12))) __attribute__((availability(ios,introduced=10.0))) \
  __attribute__((availability(tvos,introduced=10.0))) __attribute__((availability(watchos,introduced=3.0)))
typedef struct os_unfair_lock_s { uint32_t _os_unfair_lock_opaque; } os_unfair_lock, *os_unfair_lock_t;
#define OS_UNFAIR_LOCK_INIT ((os_unfair_lock){0})
OS_UNFAIR_LOCK_AVAILABILITY void os_unfair_lock_lock(os_unfair_lock_t lock);
OS_UNFAIR_LOCK_AVAILABILITY bool os_unfair_lock_trylock(os_unfair_lock_t lock);
OS_UNFAIR_LOCK_AVAILABILITY void os_unfair_lock_unlock(os_unfair_lock_t lock);
OS_UNFAIR_LOCK_AVAILABILITY void os_unfair_lock_assert_owner(const os_unfair_lock *lock);
OS_UNFAIR_LOCK_AVAILABILITY void os_unfair_lock_assert_not_owner(const os_unfair_lock *lock);
#endif
EOF
}

# ---------------------------------------------------------------------------------------------
# 3. Stand-in Swift modules, as .swiftinterface files (declarations only). Minimal: what
#    FluxCapacitor's library targets use, plus close neighbours. Signatures follow Apple's SDK;
#    where the SDK and swift-corelibs disagree, Apple's wins. Availability facts encoded (Apple
#    SDK headers / developer.apple.com "availability" metadata; the same facts appear in the
#    toolchain's own swift-foundation symbol graph, FoundationEssentials on Linux):
#      FileManager.homeDirectoryForCurrentUser   macOS 10.12; unavailable on iOS, tvOS, watchOS,
#                                                visionOS (NSFileManager.h: API_UNAVAILABLE(ios,
#                                                watchos, tvos); Apple's page lists macOS only)
#      FileManager.temporaryDirectory             macOS 10.12, iOS 10, tvOS 10, watchOS 3
#      URL.homeDirectory, URL.appending(path:), URL.path(percentEncoded:)
#                                                macOS 13, iOS 16, tvOS 16, watchOS 9
#      Date.now, FormatStyle, Date.formatted(_:), Date.ISO8601FormatStyle
#                                                macOS 12, iOS 15, tvOS 15, watchOS 8
#      ISO8601DateFormatter                      macOS 10.12, iOS 10, tvOS 10, watchOS 3
#      ISO8601DateFormatter.Options.withFractionalSeconds  macOS 10.13, iOS 11, tvOS 11, watchOS 4
#      JSONEncoder.OutputFormatting.sortedKeys   macOS 10.13, iOS 11, tvOS 11, watchOS 4
#      JSONEncoder.OutputFormatting.withoutEscapingSlashes  macOS 10.15, iOS 13, tvOS 13, watchOS 6
#      CocoaError.underlying                     macOS 11.3, iOS 14.5, tvOS 14.5, watchOS 7.4
#      NSLocking.withLock(_:)                    no restriction (macOS 10.10 / iOS 8: back-deployed)
#      DispatchQueue.AutoreleaseFrequency.workItem/.never, DispatchQueue.Attributes.initiallyInactive,
#      dispatchPrecondition, DispatchSourceProtocol.activate   macOS 10.12, iOS 10, tvOS 10, watchOS 3
#      os_unfair_lock_*                          macOS 10.12, iOS 10, tvOS 10, watchOS 3 (C header)
#    Sendable: as the SDK marks them (value types, NSLock/NSCondition NS_SWIFT_SENDABLE,
#    JSONEncoder/JSONDecoder @unchecked Sendable, DispatchQueue and other dispatch objects).
#    Not modelled: Objective-C (NSObject is a plain Swift root class here, no @objc/dynamic),
#    the ~99% of Foundation a package does not use: a missing declaration shows up as
#    "has no member" / "cannot find in scope" and means "add it to the stub", not a bug.
# ---------------------------------------------------------------------------------------------
AVAIL_12_15='@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, *)'
AVAIL_13_16='@available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)'
AVAIL_1012='@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)'
AVAIL_1013='@available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, *)'

stub_Darwin() {
cat <<'EOF'
// Stand-in for Apple's Darwin overlay (swift/stdlib/public/Platform: Platform.swift,
// POSIXError.swift, TiocConstants...), over the stand-in C module Darwin.
@_exported import Darwin
import Swift
public var errno: Swift.Int32 { get set }
public func open(_ path: Swift.UnsafePointer<Swift.CChar>, _ oflag: Swift.Int32) -> Swift.Int32
public func open(_ path: Swift.UnsafePointer<Swift.CChar>, _ oflag: Swift.Int32, _ mode: Darwin.mode_t) -> Swift.Int32
public func openat(_ fd: Swift.Int32, _ path: Swift.UnsafePointer<Swift.CChar>, _ oflag: Swift.Int32) -> Swift.Int32
public func openat(_ fd: Swift.Int32, _ path: Swift.UnsafePointer<Swift.CChar>, _ oflag: Swift.Int32, _ mode: Darwin.mode_t) -> Swift.Int32
public func fcntl(_ fd: Swift.Int32, _ cmd: Swift.Int32) -> Swift.Int32
public func fcntl(_ fd: Swift.Int32, _ cmd: Swift.Int32, _ value: Swift.Int32) -> Swift.Int32
public func fcntl(_ fd: Swift.Int32, _ cmd: Swift.Int32, _ ptr: Swift.UnsafeMutableRawPointer) -> Swift.Int32
public var S_IFMT: Darwin.mode_t { get }
public var S_IFIFO: Darwin.mode_t { get }
public var S_IFCHR: Darwin.mode_t { get }
public var S_IFDIR: Darwin.mode_t { get }
public var S_IFBLK: Darwin.mode_t { get }
public var S_IFREG: Darwin.mode_t { get }
public var S_IFLNK: Darwin.mode_t { get }
public var S_IFSOCK: Darwin.mode_t { get }
public var S_IFWHT: Darwin.mode_t { get }
public var S_IRWXU: Darwin.mode_t { get }
public var S_IRUSR: Darwin.mode_t { get }
public var S_IWUSR: Darwin.mode_t { get }
public var S_IXUSR: Darwin.mode_t { get }
public var S_IRWXG: Darwin.mode_t { get }
public var S_IRGRP: Darwin.mode_t { get }
public var S_IWGRP: Darwin.mode_t { get }
public var S_IXGRP: Darwin.mode_t { get }
public var S_IRWXO: Darwin.mode_t { get }
public var S_IROTH: Darwin.mode_t { get }
public var S_IWOTH: Darwin.mode_t { get }
public var S_IXOTH: Darwin.mode_t { get }
public var S_ISUID: Darwin.mode_t { get }
public var S_ISGID: Darwin.mode_t { get }
public var S_ISVTX: Darwin.mode_t { get }
// Darwin: sig_t, with SIG_DFL optional (nil), the others not (Platform.swift).
public var SIG_DFL: Darwin.sig_t? { get }
public var SIG_IGN: Darwin.sig_t { get }
public var SIG_ERR: Darwin.sig_t { get }
public var SIG_HOLD: Darwin.sig_t { get }
public var M_PI: Swift.Double { get }
public struct DarwinBoolean : Swift.ExpressibleByBooleanLiteral, Swift.Sendable {
  public init(_ value: Swift.Bool)
  public init(booleanLiteral value: Swift.Bool)
  public var boolValue: Swift.Bool { get }
  public typealias BooleanLiteralType = Swift.Bool
}
public enum POSIXErrorCode : Swift.Int32, Swift.Sendable {
EOF
for kv in $DARWIN_ERRNO; do echo "  case ${kv%%=*} = ${kv#*=}"; done
cat <<'EOF'
  public static var EWOULDBLOCK: Darwin.POSIXErrorCode { get }
  public init?(rawValue: Swift.Int32)
  public typealias RawValue = Swift.Int32
  public var rawValue: Swift.Int32 { get }
}
EOF
}

stub_Dispatch() {
cat <<EOF
// Stand-in for Apple's Dispatch overlay; declarations as in swift-corelibs-libdispatch's
// src/swift (the source of Apple's overlay), subset.
import Swift
public class DispatchObject {
  public func setTarget(queue: Dispatch.DispatchQueue)
  $AVAIL_1012
  public func activate()
  public func suspend()
  public func resume()
}
public struct DispatchQoS : Swift.Equatable, Swift.Sendable {
  public let qosClass: Dispatch.DispatchQoS.QoSClass
  public let relativePriority: Swift.Int
  public static let background: Dispatch.DispatchQoS
  public static let utility: Dispatch.DispatchQoS
  public static let \`default\`: Dispatch.DispatchQoS
  public static let userInitiated: Dispatch.DispatchQoS
  public static let userInteractive: Dispatch.DispatchQoS
  public static let unspecified: Dispatch.DispatchQoS
  public enum QoSClass : Swift.Sendable {
    case background, utility, \`default\`, userInitiated, userInteractive, unspecified
    public static func == (a: Dispatch.DispatchQoS.QoSClass, b: Dispatch.DispatchQoS.QoSClass) -> Swift.Bool
    public func hash(into hasher: inout Swift.Hasher)
    public var hashValue: Swift.Int { get }
  }
  public init(qosClass: Dispatch.DispatchQoS.QoSClass, relativePriority: Swift.Int)
  public static func == (a: Dispatch.DispatchQoS, b: Dispatch.DispatchQoS) -> Swift.Bool
}
public struct DispatchWorkItemFlags : Swift.OptionSet, Swift.Sendable {
  public let rawValue: Swift.UInt
  public init(rawValue: Swift.UInt)
  public static let barrier: Dispatch.DispatchWorkItemFlags
  public static let detached: Dispatch.DispatchWorkItemFlags
  public static let assignCurrentContext: Dispatch.DispatchWorkItemFlags
  public static let noQoS: Dispatch.DispatchWorkItemFlags
  public static let inheritQoS: Dispatch.DispatchWorkItemFlags
  public static let enforceQoS: Dispatch.DispatchWorkItemFlags
  public typealias ArrayLiteralElement = Dispatch.DispatchWorkItemFlags
  public typealias Element = Dispatch.DispatchWorkItemFlags
  public typealias RawValue = Swift.UInt
}
public class DispatchWorkItem {
  public init(qos: Dispatch.DispatchQoS = .unspecified, flags: Dispatch.DispatchWorkItemFlags = [], block: @escaping @Sendable @convention(block) () -> Swift.Void)
  public func perform()
  public func wait()
  public func wait(timeout: Dispatch.DispatchTime) -> Dispatch.DispatchTimeoutResult
  public func notify(qos: Dispatch.DispatchQoS = .unspecified, flags: Dispatch.DispatchWorkItemFlags = [], queue: Dispatch.DispatchQueue, execute: @escaping @Sendable @convention(block) () -> Swift.Void)
  public func cancel()
  public var isCancelled: Swift.Bool { get }
}
public class DispatchGroup : Dispatch.DispatchObject, @unchecked Swift.Sendable {
  public init()
  public func enter()
  public func leave()
  public func notify(qos: Dispatch.DispatchQoS = .unspecified, flags: Dispatch.DispatchWorkItemFlags = [], queue: Dispatch.DispatchQueue, execute work: @escaping @Sendable @convention(block) () -> Swift.Void)
  public func wait()
  public func wait(timeout: Dispatch.DispatchTime) -> Dispatch.DispatchTimeoutResult
}
final public class DispatchSpecificKey<T> {
  public init()
}
extension Dispatch.DispatchSpecificKey : Swift.Sendable where T : Swift.Sendable {}
public class DispatchQueue : Dispatch.DispatchObject, @unchecked Swift.Sendable {
  public struct Attributes : Swift.OptionSet, Swift.Sendable {
    public let rawValue: Swift.UInt64
    public init(rawValue: Swift.UInt64)
    public static let concurrent: Dispatch.DispatchQueue.Attributes
    $AVAIL_1012
    public static let initiallyInactive: Dispatch.DispatchQueue.Attributes
    public typealias ArrayLiteralElement = Dispatch.DispatchQueue.Attributes
    public typealias Element = Dispatch.DispatchQueue.Attributes
    public typealias RawValue = Swift.UInt64
  }
  public enum AutoreleaseFrequency : Swift.Sendable {
    case inherit
    $AVAIL_1012
    case workItem
    $AVAIL_1012
    case never
  }
  public class var main: Dispatch.DispatchQueue { get }
  public class func global(qos: Dispatch.DispatchQoS.QoSClass = .default) -> Dispatch.DispatchQueue
  public class func getSpecific<T>(key: Dispatch.DispatchSpecificKey<T>) -> T?
  public convenience init(label: Swift.String, qos: Dispatch.DispatchQoS = .unspecified, attributes: Dispatch.DispatchQueue.Attributes = [], autoreleaseFrequency: Dispatch.DispatchQueue.AutoreleaseFrequency = .inherit, target: Dispatch.DispatchQueue? = nil)
  public var label: Swift.String { get }
  public func sync(execute workItem: Dispatch.DispatchWorkItem)
  public func async(execute workItem: Dispatch.DispatchWorkItem)
  public func async(group: Dispatch.DispatchGroup? = nil, qos: Dispatch.DispatchQoS = .unspecified, flags: Dispatch.DispatchWorkItemFlags = [], execute work: @escaping @Sendable @convention(block) () -> Swift.Void)
  public func sync<T>(execute work: () throws -> T) rethrows -> T
  public func sync<T>(flags: Dispatch.DispatchWorkItemFlags, execute work: () throws -> T) rethrows -> T
  public func asyncAfter(deadline: Dispatch.DispatchTime, qos: Dispatch.DispatchQoS = .unspecified, flags: Dispatch.DispatchWorkItemFlags = [], execute work: @escaping @Sendable @convention(block) () -> Swift.Void)
  public func asyncAfter(deadline: Dispatch.DispatchTime, execute: Dispatch.DispatchWorkItem)
  public func getSpecific<T>(key: Dispatch.DispatchSpecificKey<T>) -> T?
  public func setSpecific<T>(key: Dispatch.DispatchSpecificKey<T>, value: T?)
  public class func concurrentPerform(iterations: Swift.Int, execute work: (Swift.Int) -> Swift.Void)
}
public struct DispatchTime : Swift.Comparable, Swift.Sendable {
  public let rawValue: Swift.UInt64
  public static func now() -> Dispatch.DispatchTime
  public static let distantFuture: Dispatch.DispatchTime
  public init(uptimeNanoseconds: Swift.UInt64)
  public var uptimeNanoseconds: Swift.UInt64 { get }
  public static func < (a: Dispatch.DispatchTime, b: Dispatch.DispatchTime) -> Swift.Bool
  public static func == (a: Dispatch.DispatchTime, b: Dispatch.DispatchTime) -> Swift.Bool
}
public enum DispatchTimeInterval : Swift.Equatable, Swift.Sendable {
  case seconds(Swift.Int)
  case milliseconds(Swift.Int)
  case microseconds(Swift.Int)
  case nanoseconds(Swift.Int)
  case never
  public static func == (lhs: Dispatch.DispatchTimeInterval, rhs: Dispatch.DispatchTimeInterval) -> Swift.Bool
}
public func + (time: Dispatch.DispatchTime, interval: Dispatch.DispatchTimeInterval) -> Dispatch.DispatchTime
public func - (time: Dispatch.DispatchTime, interval: Dispatch.DispatchTimeInterval) -> Dispatch.DispatchTime
public func + (time: Dispatch.DispatchTime, seconds: Swift.Double) -> Dispatch.DispatchTime
public func - (time: Dispatch.DispatchTime, seconds: Swift.Double) -> Dispatch.DispatchTime
public enum DispatchTimeoutResult : Swift.Sendable {
  case success
  case timedOut
  public static func == (a: Dispatch.DispatchTimeoutResult, b: Dispatch.DispatchTimeoutResult) -> Swift.Bool
  public func hash(into hasher: inout Swift.Hasher)
  public var hashValue: Swift.Int { get }
}
public class DispatchSemaphore : Dispatch.DispatchObject, @unchecked Swift.Sendable {
  public init(value: Swift.Int)
  @discardableResult
  public func signal() -> Swift.Int
  public func wait()
  public func wait(timeout: Dispatch.DispatchTime) -> Dispatch.DispatchTimeoutResult
}
$AVAIL_1012
public enum DispatchPredicate : Swift.Sendable {
  case onQueue(Dispatch.DispatchQueue)
  case onQueueAsBarrier(Dispatch.DispatchQueue)
  case notOnQueue(Dispatch.DispatchQueue)
}
$AVAIL_1012
public func dispatchPrecondition(condition: @autoclosure () -> Dispatch.DispatchPredicate)
public typealias DispatchSourceHandler = @convention(block) () -> Swift.Void
public protocol DispatchSourceProtocol {
  func setEventHandler(qos: Dispatch.DispatchQoS, flags: Dispatch.DispatchWorkItemFlags, handler: Dispatch.DispatchSourceHandler?)
  func setCancelHandler(qos: Dispatch.DispatchQoS, flags: Dispatch.DispatchWorkItemFlags, handler: Dispatch.DispatchSourceHandler?)
  func setRegistrationHandler(qos: Dispatch.DispatchQoS, flags: Dispatch.DispatchWorkItemFlags, handler: Dispatch.DispatchSourceHandler?)
  func cancel()
  func resume()
  func suspend()
  var handle: Swift.UInt { get }
  var mask: Swift.UInt { get }
  var data: Swift.UInt { get }
  var isCancelled: Swift.Bool { get }
}
extension Dispatch.DispatchSourceProtocol {
  public func setEventHandler(qos: Dispatch.DispatchQoS = .unspecified, flags: Dispatch.DispatchWorkItemFlags = [], handler: Dispatch.DispatchSourceHandler?)
  public func setCancelHandler(qos: Dispatch.DispatchQoS = .unspecified, flags: Dispatch.DispatchWorkItemFlags = [], handler: Dispatch.DispatchSourceHandler?)
  public func setRegistrationHandler(qos: Dispatch.DispatchQoS = .unspecified, flags: Dispatch.DispatchWorkItemFlags = [], handler: Dispatch.DispatchSourceHandler?)
  $AVAIL_1012
  public func activate()
}
public protocol DispatchSourceSignal : Dispatch.DispatchSourceProtocol {}
public protocol DispatchSourceTimer : Dispatch.DispatchSourceProtocol {
  func schedule(deadline: Dispatch.DispatchTime, repeating interval: Dispatch.DispatchTimeInterval, leeway: Dispatch.DispatchTimeInterval)
}
extension Dispatch.DispatchSourceTimer {
  public func schedule(deadline: Dispatch.DispatchTime, repeating interval: Dispatch.DispatchTimeInterval = .never, leeway: Dispatch.DispatchTimeInterval = .nanoseconds(0))
}
public class DispatchSource : Dispatch.DispatchObject, @unchecked Swift.Sendable, Dispatch.DispatchSourceProtocol, Dispatch.DispatchSourceSignal, Dispatch.DispatchSourceTimer {
  public struct TimerFlags : Swift.OptionSet, Swift.Sendable {
    public let rawValue: Swift.UInt
    public init(rawValue: Swift.UInt)
    public static let strict: Dispatch.DispatchSource.TimerFlags
    public typealias ArrayLiteralElement = Dispatch.DispatchSource.TimerFlags
    public typealias Element = Dispatch.DispatchSource.TimerFlags
    public typealias RawValue = Swift.UInt
  }
  public class func makeSignalSource(signal: Swift.Int32, queue: Dispatch.DispatchQueue? = nil) -> any Dispatch.DispatchSourceSignal
  public class func makeTimerSource(flags: Dispatch.DispatchSource.TimerFlags = [], queue: Dispatch.DispatchQueue? = nil) -> any Dispatch.DispatchSourceTimer
  public func setEventHandler(qos: Dispatch.DispatchQoS, flags: Dispatch.DispatchWorkItemFlags, handler: Dispatch.DispatchSourceHandler?)
  public func setCancelHandler(qos: Dispatch.DispatchQoS, flags: Dispatch.DispatchWorkItemFlags, handler: Dispatch.DispatchSourceHandler?)
  public func setRegistrationHandler(qos: Dispatch.DispatchQoS, flags: Dispatch.DispatchWorkItemFlags, handler: Dispatch.DispatchSourceHandler?)
  public func cancel()
  public var handle: Swift.UInt { get }
  public var mask: Swift.UInt { get }
  public var data: Swift.UInt { get }
  public var isCancelled: Swift.Bool { get }
  public func schedule(deadline: Dispatch.DispatchTime, repeating interval: Dispatch.DispatchTimeInterval, leeway: Dispatch.DispatchTimeInterval)
}
EOF
}

stub_Foundation() {
cat <<EOF
// Stand-in for Apple's Foundation: the subset FluxCapacitor's library targets use, with
// Apple's signatures and availability (see the list in make-standin-sdk.sh). As on Apple,
// importing Foundation also imports Darwin and Dispatch.
@_exported import Darwin
@_exported import Dispatch
import Swift
import _Concurrency
public typealias TimeInterval = Swift.Double

// Objective-C root class, as a plain Swift class (no Objective-C runtime here).
open class NSObject : Swift.Hashable, Swift.CustomStringConvertible, Swift.CustomDebugStringConvertible {
  public init()
  open var hash: Swift.Int { get }
  open func isEqual(_ object: Any?) -> Swift.Bool
  open var description: Swift.String { get }
  open var debugDescription: Swift.String { get }
  public static func == (lhs: Foundation.NSObject, rhs: Foundation.NSObject) -> Swift.Bool
  public func hash(into hasher: inout Swift.Hasher)
  public var hashValue: Swift.Int { get }
}

// MARK: Locks and threads
public protocol NSLocking {
  func lock()
  func unlock()
}
extension Foundation.NSLocking {
  public func withLock<R>(_ body: () throws -> R) rethrows -> R
}
open class NSLock : Foundation.NSObject, Foundation.NSLocking, @unchecked Swift.Sendable {
  public override init()
  open func lock()
  open func unlock()
  open func \`try\`() -> Swift.Bool
  open func lock(before limit: Foundation.Date) -> Swift.Bool
  open var name: Swift.String?
}
open class NSRecursiveLock : Foundation.NSObject, Foundation.NSLocking, @unchecked Swift.Sendable {
  public override init()
  open func lock()
  open func unlock()
  open func \`try\`() -> Swift.Bool
  open var name: Swift.String?
}
open class NSCondition : Foundation.NSObject, Foundation.NSLocking, @unchecked Swift.Sendable {
  public override init()
  open func lock()
  open func unlock()
  open func wait()
  open func wait(until limit: Foundation.Date) -> Swift.Bool
  open func signal()
  open func broadcast()
  open var name: Swift.String?
}
open class Thread : Foundation.NSObject, @unchecked Swift.Sendable {
  open class var current: Foundation.Thread { get }
  open class var main: Foundation.Thread { get }
  open class var isMainThread: Swift.Bool { get }
  open var isMainThread: Swift.Bool { get }
  open var name: Swift.String?
  open class func sleep(forTimeInterval ti: Foundation.TimeInterval)
}
open class ProcessInfo : Foundation.NSObject, @unchecked Swift.Sendable {
  open class var processInfo: Foundation.ProcessInfo { get }
  open var environment: [Swift.String : Swift.String] { get }
  open var arguments: [Swift.String] { get }
  open var processIdentifier: Swift.Int32 { get }
  open var processName: Swift.String
  open var systemUptime: Foundation.TimeInterval { get }
  open var activeProcessorCount: Swift.Int { get }
}

// MARK: Values
public struct Data : Swift.Equatable, Swift.Hashable, Swift.RandomAccessCollection, Swift.MutableCollection, Swift.RangeReplaceableCollection, Swift.Sendable, Swift.Codable, Swift.CustomStringConvertible, Swift.CustomDebugStringConvertible {
  public typealias Index = Swift.Int
  public typealias Indices = Swift.Range<Swift.Int>
  public typealias Element = Swift.UInt8
  public typealias SubSequence = Foundation.Data
  public typealias Iterator = Swift.IndexingIterator<Foundation.Data>
  public init()
  public init(count: Swift.Int)
  public init(capacity: Swift.Int)
  public init(bytes: Swift.UnsafeRawPointer, count: Swift.Int)
  public init<SourceType>(buffer: Swift.UnsafeBufferPointer<SourceType>)
  public init(_ elements: [Swift.UInt8])
  public init<S>(_ elements: S) where S : Swift.Sequence, S.Element == Swift.UInt8
  public init(contentsOf url: Foundation.URL, options: Foundation.Data.ReadingOptions = []) throws
  public func write(to url: Foundation.URL, options: Foundation.Data.WritingOptions = []) throws
  public struct ReadingOptions : Swift.OptionSet, Swift.Sendable {
    public let rawValue: Swift.UInt
    public init(rawValue: Swift.UInt)
    public static let mappedIfSafe: Foundation.Data.ReadingOptions
    public static let uncached: Foundation.Data.ReadingOptions
    public static let alwaysMapped: Foundation.Data.ReadingOptions
    public typealias ArrayLiteralElement = Foundation.Data.ReadingOptions
    public typealias Element = Foundation.Data.ReadingOptions
    public typealias RawValue = Swift.UInt
  }
  public struct WritingOptions : Swift.OptionSet, Swift.Sendable {
    public let rawValue: Swift.UInt
    public init(rawValue: Swift.UInt)
    public static let atomic: Foundation.Data.WritingOptions
    public static let withoutOverwriting: Foundation.Data.WritingOptions
    public typealias ArrayLiteralElement = Foundation.Data.WritingOptions
    public typealias Element = Foundation.Data.WritingOptions
    public typealias RawValue = Swift.UInt
  }
  public var count: Swift.Int { get set }
  public var startIndex: Swift.Int { get }
  public var endIndex: Swift.Int { get }
  public var indices: Swift.Range<Swift.Int> { get }
  public func index(before i: Swift.Int) -> Swift.Int
  public func index(after i: Swift.Int) -> Swift.Int
  public subscript(index: Swift.Int) -> Swift.UInt8 { get set }
  public subscript(bounds: Swift.Range<Swift.Int>) -> Foundation.Data { get set }
  public func makeIterator() -> Swift.IndexingIterator<Foundation.Data>
  public mutating func replaceSubrange<C>(_ subrange: Swift.Range<Swift.Int>, with newElements: C) where C : Swift.Collection, C.Element == Swift.UInt8
  public mutating func append(_ data: Foundation.Data)
  public mutating func append(contentsOf bytes: [Swift.UInt8])
  public mutating func append<SourceType>(_ buffer: Swift.UnsafeBufferPointer<SourceType>)
  public mutating func append<S>(contentsOf elements: S) where S : Swift.Sequence, S.Element == Swift.UInt8
  public func withUnsafeBytes<ResultType>(_ body: (Swift.UnsafeRawBufferPointer) throws -> ResultType) rethrows -> ResultType
  public mutating func withUnsafeMutableBytes<ResultType>(_ body: (Swift.UnsafeMutableRawBufferPointer) throws -> ResultType) rethrows -> ResultType
  public func base64EncodedString() -> Swift.String
  public init?(base64Encoded base64String: Swift.String)
  public static func == (d1: Foundation.Data, d2: Foundation.Data) -> Swift.Bool
  public func hash(into hasher: inout Swift.Hasher)
  public var hashValue: Swift.Int { get }
  public init(from decoder: any Swift.Decoder) throws
  public func encode(to encoder: any Swift.Encoder) throws
  public var description: Swift.String { get }
  public var debugDescription: Swift.String { get }
}
public struct Date : Swift.Comparable, Swift.Hashable, Swift.Equatable, Swift.Sendable, Swift.Codable, Swift.CustomStringConvertible {
  public init()
  public init(timeIntervalSinceNow: Foundation.TimeInterval)
  public init(timeIntervalSince1970: Foundation.TimeInterval)
  public init(timeIntervalSinceReferenceDate ti: Foundation.TimeInterval)
  public init(timeInterval: Foundation.TimeInterval, since date: Foundation.Date)
  $AVAIL_12_15
  public static var now: Foundation.Date { get }
  public static let distantFuture: Foundation.Date
  public static let distantPast: Foundation.Date
  public var timeIntervalSince1970: Foundation.TimeInterval { get }
  public var timeIntervalSinceReferenceDate: Foundation.TimeInterval { get }
  public var timeIntervalSinceNow: Foundation.TimeInterval { get }
  public func timeIntervalSince(_ date: Foundation.Date) -> Foundation.TimeInterval
  public func addingTimeInterval(_ timeInterval: Foundation.TimeInterval) -> Foundation.Date
  public static func + (lhs: Foundation.Date, rhs: Foundation.TimeInterval) -> Foundation.Date
  public static func - (lhs: Foundation.Date, rhs: Foundation.TimeInterval) -> Foundation.Date
  public static func < (lhs: Foundation.Date, rhs: Foundation.Date) -> Swift.Bool
  public static func == (lhs: Foundation.Date, rhs: Foundation.Date) -> Swift.Bool
  public func hash(into hasher: inout Swift.Hasher)
  public var hashValue: Swift.Int { get }
  public init(from decoder: any Swift.Decoder) throws
  public func encode(to encoder: any Swift.Encoder) throws
  public var description: Swift.String { get }
}
$AVAIL_12_15
public protocol FormatStyle<FormatInput, FormatOutput> : Swift.Decodable, Swift.Encodable, Swift.Hashable {
  associatedtype FormatInput
  associatedtype FormatOutput
  func format(_ value: Self.FormatInput) -> Self.FormatOutput
}
$AVAIL_12_15
extension Foundation.Date {
  public func formatted<F>(_ format: F) -> F.FormatOutput where F : Foundation.FormatStyle, F.FormatInput == Foundation.Date
  public struct ISO8601FormatStyle : Foundation.FormatStyle, Swift.Sendable {
    public init()
    public func format(_ value: Foundation.Date) -> Swift.String
    public typealias FormatInput = Foundation.Date
    public typealias FormatOutput = Swift.String
    public static func == (a: Foundation.Date.ISO8601FormatStyle, b: Foundation.Date.ISO8601FormatStyle) -> Swift.Bool
    public func hash(into hasher: inout Swift.Hasher)
    public var hashValue: Swift.Int { get }
    public init(from decoder: any Swift.Decoder) throws
    public func encode(to encoder: any Swift.Encoder) throws
  }
}
$AVAIL_12_15
extension Foundation.FormatStyle where Self == Foundation.Date.ISO8601FormatStyle {
  public static var iso8601: Foundation.Date.ISO8601FormatStyle { get }
}
public struct UUID : Swift.Hashable, Swift.Equatable, Swift.CustomStringConvertible, Swift.Sendable, Swift.Codable {
  public init()
  public init?(uuidString string: Swift.String)
  public var uuidString: Swift.String { get }
  public var description: Swift.String { get }
  public static func == (lhs: Foundation.UUID, rhs: Foundation.UUID) -> Swift.Bool
  public func hash(into hasher: inout Swift.Hasher)
  public var hashValue: Swift.Int { get }
  public init(from decoder: any Swift.Decoder) throws
  public func encode(to encoder: any Swift.Encoder) throws
}
public struct Decimal : Swift.Sendable, Swift.Hashable, Swift.Comparable, Swift.Codable, Swift.CustomStringConvertible, Swift.ExpressibleByIntegerLiteral, Swift.ExpressibleByFloatLiteral {
  public init()
  public init(_ value: Swift.Int)
  public init(_ value: Swift.Double)
  public init(integerLiteral value: Swift.Int)
  public init(floatLiteral value: Swift.Double)
  public var description: Swift.String { get }
  public static func == (lhs: Foundation.Decimal, rhs: Foundation.Decimal) -> Swift.Bool
  public static func < (lhs: Foundation.Decimal, rhs: Foundation.Decimal) -> Swift.Bool
  public func hash(into hasher: inout Swift.Hasher)
  public var hashValue: Swift.Int { get }
  public init(from decoder: any Swift.Decoder) throws
  public func encode(to encoder: any Swift.Encoder) throws
  public typealias IntegerLiteralType = Swift.Int
  public typealias FloatLiteralType = Swift.Double
}
public struct URL : Swift.Equatable, Swift.Hashable, Swift.Sendable, Swift.Codable, Swift.CustomStringConvertible, Swift.CustomDebugStringConvertible {
  public init?(string: Swift.String)
  public init?(string: Swift.String, relativeTo url: Foundation.URL?)
  public init(fileURLWithPath path: Swift.String)
  public init(fileURLWithPath path: Swift.String, isDirectory: Swift.Bool)
  public init(fileURLWithPath path: Swift.String, relativeTo base: Foundation.URL?)
  public var path: Swift.String { get }
  public var absoluteString: Swift.String { get }
  public var absoluteURL: Foundation.URL { get }
  public var baseURL: Foundation.URL? { get }
  public var scheme: Swift.String? { get }
  public var host: Swift.String? { get }
  public var isFileURL: Swift.Bool { get }
  public var lastPathComponent: Swift.String { get }
  public var pathComponents: [Swift.String] { get }
  public var pathExtension: Swift.String { get }
  public var standardizedFileURL: Foundation.URL { get }
  public var resolvingSymlinksInPath: Foundation.URL { get }
  public func appendingPathComponent(_ pathComponent: Swift.String) -> Foundation.URL
  public func appendingPathComponent(_ pathComponent: Swift.String, isDirectory: Swift.Bool) -> Foundation.URL
  public func appendingPathExtension(_ pathExtension: Swift.String) -> Foundation.URL
  public func deletingLastPathComponent() -> Foundation.URL
  public func deletingPathExtension() -> Foundation.URL
  public mutating func appendPathComponent(_ pathComponent: Swift.String)
  public mutating func appendPathComponent(_ pathComponent: Swift.String, isDirectory: Swift.Bool)
  $AVAIL_13_16
  public func path(percentEncoded: Swift.Bool = true) -> Swift.String
  $AVAIL_13_16
  public func appending(path: Swift.String) -> Foundation.URL
  $AVAIL_13_16
  public static var homeDirectory: Foundation.URL { get }
  $AVAIL_13_16
  public static var temporaryDirectory: Foundation.URL { get }
  $AVAIL_13_16
  public static var applicationSupportDirectory: Foundation.URL { get }
  $AVAIL_13_16
  public static var documentsDirectory: Foundation.URL { get }
  $AVAIL_13_16
  public static var cachesDirectory: Foundation.URL { get }
  public static func == (lhs: Foundation.URL, rhs: Foundation.URL) -> Swift.Bool
  public func hash(into hasher: inout Swift.Hasher)
  public var hashValue: Swift.Int { get }
  public init(from decoder: any Swift.Decoder) throws
  public func encode(to encoder: any Swift.Encoder) throws
  public var description: Swift.String { get }
  public var debugDescription: Swift.String { get }
}

// MARK: Strings
open class NSString : Foundation.NSObject, @unchecked Swift.Sendable {
  public init(string aString: Swift.String)
  open var length: Swift.Int { get }
  public struct CompareOptions : Swift.OptionSet, Swift.Sendable {
    public let rawValue: Swift.UInt
    public init(rawValue: Swift.UInt)
    public static let caseInsensitive: Foundation.NSString.CompareOptions
    public static let literal: Foundation.NSString.CompareOptions
    public static let backwards: Foundation.NSString.CompareOptions
    public static let anchored: Foundation.NSString.CompareOptions
    public static let numeric: Foundation.NSString.CompareOptions
    public static let regularExpression: Foundation.NSString.CompareOptions
    public typealias ArrayLiteralElement = Foundation.NSString.CompareOptions
    public typealias Element = Foundation.NSString.CompareOptions
    public typealias RawValue = Swift.UInt
  }
  open var pathComponents: [Swift.String] { get }
  open var isAbsolutePath: Swift.Bool { get }
  open var lastPathComponent: Swift.String { get }
  open var deletingLastPathComponent: Swift.String { get }
  open func appendingPathComponent(_ str: Swift.String) -> Swift.String
  open var pathExtension: Swift.String { get }
  open var deletingPathExtension: Swift.String { get }
  open func appendingPathExtension(_ str: Swift.String) -> Swift.String?
  open var expandingTildeInPath: Swift.String { get }
  open var standardizingPath: Swift.String { get }
  open var resolvingSymlinksInPath: Swift.String { get }
}
extension Swift.String : Swift._ObjectiveCBridgeable {
  public typealias _ObjectiveCType = Foundation.NSString
  public func _bridgeToObjectiveC() -> Foundation.NSString
  public static func _forceBridgeFromObjectiveC(_ x: Foundation.NSString, result: inout Swift.String?)
  public static func _conditionallyBridgeFromObjectiveC(_ x: Foundation.NSString, result: inout Swift.String?) -> Swift.Bool
  public static func _unconditionallyBridgeFromObjectiveC(_ source: Foundation.NSString?) -> Swift.String
}
extension Swift.String {
  public typealias CompareOptions = Foundation.NSString.CompareOptions
}
extension Swift.StringProtocol {
  public func replacingOccurrences<Target, Replacement>(of target: Target, with replacement: Replacement, options: Swift.String.CompareOptions = [], range searchRange: Swift.Range<Self.Index>? = nil) -> Swift.String where Target : Swift.StringProtocol, Replacement : Swift.StringProtocol
  public func components<T>(separatedBy separator: T) -> [Swift.String] where T : Swift.StringProtocol
  public func range<T>(of aString: T, options mask: Swift.String.CompareOptions = [], range searchRange: Swift.Range<Self.Index>? = nil) -> Swift.Range<Self.Index>? where T : Swift.StringProtocol
  public func contains<T>(_ other: T) -> Swift.Bool where T : Swift.StringProtocol
  public func data(using encoding: Swift.String.Encoding, allowLossyConversion: Swift.Bool = false) -> Foundation.Data?
}
extension Swift.String {
  public struct Encoding : Swift.RawRepresentable, Swift.Sendable, Swift.Hashable {
    public var rawValue: Swift.UInt
    public init(rawValue: Swift.UInt)
    public static let utf8: Swift.String.Encoding
    public static let ascii: Swift.String.Encoding
    public typealias RawValue = Swift.UInt
  }
  public init?(data: Foundation.Data, encoding: Swift.String.Encoding)
  public init(contentsOfFile path: Swift.String, encoding enc: Swift.String.Encoding) throws
  public init(format: Swift.String, _ arguments: any Swift.CVarArg...)
}

// MARK: Errors
public let NSCocoaErrorDomain: Swift.String
public let NSPOSIXErrorDomain: Swift.String
public let NSOSStatusErrorDomain: Swift.String
public let NSUnderlyingErrorKey: Swift.String
public let NSFilePathErrorKey: Swift.String
public let NSURLErrorKey: Swift.String
public let NSLocalizedDescriptionKey: Swift.String
public let NSLocalizedFailureReasonErrorKey: Swift.String
open class NSError : Foundation.NSObject, Swift.Error, @unchecked Swift.Sendable {
  public init(domain: Swift.String, code: Swift.Int, userInfo dict: [Swift.String : Any]? = nil)
  open var domain: Swift.String { get }
  open var code: Swift.Int { get }
  open var userInfo: [Swift.String : Any] { get }
  open var localizedDescription: Swift.String { get }
  open var localizedFailureReason: Swift.String? { get }
}
extension Swift.Error {
  public var localizedDescription: Swift.String { get }
}
public protocol LocalizedError : Swift.Error {
  var errorDescription: Swift.String? { get }
  var failureReason: Swift.String? { get }
  var recoverySuggestion: Swift.String? { get }
  var helpAnchor: Swift.String? { get }
}
extension Foundation.LocalizedError {
  public var errorDescription: Swift.String? { get }
  public var failureReason: Swift.String? { get }
  public var recoverySuggestion: Swift.String? { get }
  public var helpAnchor: Swift.String? { get }
}
public protocol CustomNSError : Swift.Error {
  static var errorDomain: Swift.String { get }
  var errorCode: Swift.Int { get }
  var errorUserInfo: [Swift.String : Any] { get }
}
extension Foundation.CustomNSError {
  public static var errorDomain: Swift.String { get }
  public var errorCode: Swift.Int { get }
  public var errorUserInfo: [Swift.String : Any] { get }
}
public struct POSIXError : Foundation.CustomNSError, Swift.Hashable, Swift.Sendable {
  public typealias Code = Darwin.POSIXErrorCode
  public init(_ code: Foundation.POSIXError.Code, userInfo: [Swift.String : Any] = [:])
  public var code: Foundation.POSIXError.Code { get }
  public var userInfo: [Swift.String : Any] { get }
  public static var errorDomain: Swift.String { get }
  public var errorCode: Swift.Int { get }
  public static func == (lhs: Foundation.POSIXError, rhs: Foundation.POSIXError) -> Swift.Bool
  public func hash(into hasher: inout Swift.Hasher)
  public var hashValue: Swift.Int { get }
EOF
for kv in $DARWIN_ERRNO; do echo "  public static var ${kv%%=*}: Foundation.POSIXError.Code { get }"; done
cat <<EOF
}
public func ~= (code: Foundation.POSIXError.Code, error: any Swift.Error) -> Swift.Bool
public struct CocoaError : Foundation.CustomNSError, Swift.Hashable {
  public struct Code : Swift.RawRepresentable, Swift.Hashable, Swift.Sendable {
    public let rawValue: Swift.Int
    public init(rawValue: Swift.Int)
    public init(_ rawValue: Swift.Int)
    public typealias RawValue = Swift.Int
    public static var fileNoSuchFile: Foundation.CocoaError.Code { get }
    public static var fileLocking: Foundation.CocoaError.Code { get }
    public static var fileReadUnknown: Foundation.CocoaError.Code { get }
    public static var fileReadNoPermission: Foundation.CocoaError.Code { get }
    public static var fileReadInvalidFileName: Foundation.CocoaError.Code { get }
    public static var fileReadCorruptFile: Foundation.CocoaError.Code { get }
    public static var fileReadNoSuchFile: Foundation.CocoaError.Code { get }
    public static var fileWriteUnknown: Foundation.CocoaError.Code { get }
    public static var fileWriteNoPermission: Foundation.CocoaError.Code { get }
    public static var fileWriteOutOfSpace: Foundation.CocoaError.Code { get }
    public static var fileWriteVolumeReadOnly: Foundation.CocoaError.Code { get }
    public static var fileWriteFileExists: Foundation.CocoaError.Code { get }
    public static var coderReadCorrupt: Foundation.CocoaError.Code { get }
    public static var coderValueNotFound: Foundation.CocoaError.Code { get }
  }
  public init(_ code: Foundation.CocoaError.Code, userInfo: [Swift.String : Any] = [:])
  public var code: Foundation.CocoaError.Code { get }
  public var userInfo: [Swift.String : Any] { get }
  public static var errorDomain: Swift.String { get }
  public var errorCode: Swift.Int { get }
  public var filePath: Swift.String? { get }
  public var url: Foundation.URL? { get }
  @available(macOS 11.3, iOS 14.5, tvOS 14.5, watchOS 7.4, *)
  public var underlying: (any Swift.Error)? { get }
  public static func == (lhs: Foundation.CocoaError, rhs: Foundation.CocoaError) -> Swift.Bool
  public func hash(into hasher: inout Swift.Hasher)
  public var hashValue: Swift.Int { get }
}

// MARK: Coding
open class JSONEncoder : @unchecked Swift.Sendable {
  public struct OutputFormatting : Swift.OptionSet, Swift.Sendable {
    public let rawValue: Swift.UInt
    public init(rawValue: Swift.UInt)
    public static let prettyPrinted: Foundation.JSONEncoder.OutputFormatting
    $AVAIL_1013
    public static let sortedKeys: Foundation.JSONEncoder.OutputFormatting
    @available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
    public static let withoutEscapingSlashes: Foundation.JSONEncoder.OutputFormatting
    public typealias ArrayLiteralElement = Foundation.JSONEncoder.OutputFormatting
    public typealias Element = Foundation.JSONEncoder.OutputFormatting
    public typealias RawValue = Swift.UInt
  }
  open var outputFormatting: Foundation.JSONEncoder.OutputFormatting
  open var userInfo: [Swift.CodingUserInfoKey : any Swift.Sendable]
  public init()
  open func encode<T>(_ value: T) throws -> Foundation.Data where T : Swift.Encodable
}
open class JSONDecoder : @unchecked Swift.Sendable {
  open var userInfo: [Swift.CodingUserInfoKey : any Swift.Sendable]
  public init()
  open func decode<T>(_ type: T.Type, from data: Foundation.Data) throws -> T where T : Swift.Decodable
}

// MARK: Files
open class FileHandle : Foundation.NSObject, @unchecked Swift.Sendable {
  open class var standardInput: Foundation.FileHandle { get }
  open class var standardOutput: Foundation.FileHandle { get }
  open class var standardError: Foundation.FileHandle { get }
  public init(fileDescriptor fd: Swift.Int32, closeOnDealloc closeopt: Swift.Bool)
  public convenience init(fileDescriptor fd: Swift.Int32)
  open var fileDescriptor: Swift.Int32 { get }
  open func write(_ data: Foundation.Data)
  open func readDataToEndOfFile() -> Foundation.Data
  open func closeFile()
}
open class FileManager : Foundation.NSObject, @unchecked Swift.Sendable {
  public enum SearchPathDirectory : Swift.UInt, Swift.Sendable {
    case applicationDirectory = 1, demoApplicationDirectory, developerApplicationDirectory, adminApplicationDirectory,
         libraryDirectory, developerDirectory, userDirectory, documentationDirectory, documentDirectory,
         coreServiceDirectory, autosavedInformationDirectory, desktopDirectory, cachesDirectory,
         applicationSupportDirectory, downloadsDirectory, inputMethodsDirectory, moviesDirectory,
         musicDirectory, picturesDirectory, printerDescriptionDirectory, sharedPublicDirectory,
         preferencePanesDirectory, applicationScriptsDirectory, itemReplacementDirectory = 99,
         allApplicationsDirectory = 100, allLibrariesDirectory = 101, trashDirectory = 102
    public init?(rawValue: Swift.UInt)
    public typealias RawValue = Swift.UInt
    public var rawValue: Swift.UInt { get }
  }
  public struct SearchPathDomainMask : Swift.OptionSet, Swift.Sendable {
    public let rawValue: Swift.UInt
    public init(rawValue: Swift.UInt)
    public static let userDomainMask: Foundation.FileManager.SearchPathDomainMask
    public static let localDomainMask: Foundation.FileManager.SearchPathDomainMask
    public static let networkDomainMask: Foundation.FileManager.SearchPathDomainMask
    public static let systemDomainMask: Foundation.FileManager.SearchPathDomainMask
    public static let allDomainsMask: Foundation.FileManager.SearchPathDomainMask
    public typealias ArrayLiteralElement = Foundation.FileManager.SearchPathDomainMask
    public typealias Element = Foundation.FileManager.SearchPathDomainMask
    public typealias RawValue = Swift.UInt
  }
  open class var \`default\`: Foundation.FileManager { get }
  public override init()
  open func urls(for directory: Foundation.FileManager.SearchPathDirectory, in domainMask: Foundation.FileManager.SearchPathDomainMask) -> [Foundation.URL]
  open func url(for directory: Foundation.FileManager.SearchPathDirectory, in domain: Foundation.FileManager.SearchPathDomainMask, appropriateFor url: Foundation.URL?, create shouldCreate: Swift.Bool) throws -> Foundation.URL
  // NSFileManager.h: API_AVAILABLE(macos(10.12)) API_UNAVAILABLE(ios, watchos, tvos); visionOS
  // inherits iOS's. Apple's documentation lists macOS 10.12+ only.
  @available(macOS 10.12, *)
  @available(iOS, unavailable)
  @available(tvOS, unavailable)
  @available(watchOS, unavailable)
  @available(visionOS, unavailable)
  @available(macCatalyst, unavailable)
  open var homeDirectoryForCurrentUser: Foundation.URL { get }
  $AVAIL_1012
  open var temporaryDirectory: Foundation.URL { get }
  open var currentDirectoryPath: Swift.String { get }
  open func fileExists(atPath path: Swift.String) -> Swift.Bool
  open func fileExists(atPath path: Swift.String, isDirectory: Swift.UnsafeMutablePointer<Foundation.ObjCBool>?) -> Swift.Bool
  open func contentsOfDirectory(atPath path: Swift.String) throws -> [Swift.String]
  open func contentsOfDirectory(at url: Foundation.URL, includingPropertiesForKeys keys: [Foundation.URLResourceKey]?, options mask: Foundation.FileManager.DirectoryEnumerationOptions = []) throws -> [Foundation.URL]
  open func createDirectory(at url: Foundation.URL, withIntermediateDirectories createIntermediates: Swift.Bool, attributes: [Foundation.FileAttributeKey : Any]? = nil) throws
  open func createDirectory(atPath path: Swift.String, withIntermediateDirectories createIntermediates: Swift.Bool, attributes: [Foundation.FileAttributeKey : Any]? = nil) throws
  open func copyItem(atPath srcPath: Swift.String, toPath dstPath: Swift.String) throws
  open func copyItem(at srcURL: Foundation.URL, to dstURL: Foundation.URL) throws
  open func moveItem(atPath srcPath: Swift.String, toPath dstPath: Swift.String) throws
  open func moveItem(at srcURL: Foundation.URL, to dstURL: Foundation.URL) throws
  open func removeItem(atPath path: Swift.String) throws
  open func removeItem(at URL: Foundation.URL) throws
  open func attributesOfItem(atPath path: Swift.String) throws -> [Foundation.FileAttributeKey : Any]
  open func createFile(atPath path: Swift.String, contents data: Foundation.Data?, attributes attr: [Foundation.FileAttributeKey : Any]? = nil) -> Swift.Bool
  open func contents(atPath path: Swift.String) -> Foundation.Data?
  public struct DirectoryEnumerationOptions : Swift.OptionSet, Swift.Sendable {
    public let rawValue: Swift.UInt
    public init(rawValue: Swift.UInt)
    public static let skipsHiddenFiles: Foundation.FileManager.DirectoryEnumerationOptions
    public typealias ArrayLiteralElement = Foundation.FileManager.DirectoryEnumerationOptions
    public typealias Element = Foundation.FileManager.DirectoryEnumerationOptions
    public typealias RawValue = Swift.UInt
  }
}
public struct ObjCBool : Swift.ExpressibleByBooleanLiteral, Swift.Sendable {
  public init(_ value: Swift.Bool)
  public init(booleanLiteral value: Swift.Bool)
  public var boolValue: Swift.Bool { get }
  public typealias BooleanLiteralType = Swift.Bool
}
public struct FileAttributeKey : Swift.RawRepresentable, Swift.Hashable, Swift.Sendable {
  public var rawValue: Swift.String
  public init(rawValue: Swift.String)
  public init(_ rawValue: Swift.String)
  public static let size: Foundation.FileAttributeKey
  public static let modificationDate: Foundation.FileAttributeKey
  public static let posixPermissions: Foundation.FileAttributeKey
  public static let type: Foundation.FileAttributeKey
  public typealias RawValue = Swift.String
}
public struct URLResourceKey : Swift.RawRepresentable, Swift.Hashable, Swift.Sendable {
  public var rawValue: Swift.String
  public init(rawValue: Swift.String)
  public init(_ rawValue: Swift.String)
  public static let isDirectoryKey: Foundation.URLResourceKey
  public static let fileSizeKey: Foundation.URLResourceKey
  public typealias RawValue = Swift.String
}

// MARK: Formatting
open class Formatter : Foundation.NSObject, @unchecked Swift.Sendable {
  public override init()
}
$AVAIL_1012
open class ISO8601DateFormatter : Foundation.Formatter, @unchecked Swift.Sendable {
  public struct Options : Swift.OptionSet, Swift.Sendable {
    public let rawValue: Swift.UInt
    public init(rawValue: Swift.UInt)
    public static let withYear: Foundation.ISO8601DateFormatter.Options
    public static let withMonth: Foundation.ISO8601DateFormatter.Options
    public static let withWeekOfYear: Foundation.ISO8601DateFormatter.Options
    public static let withDay: Foundation.ISO8601DateFormatter.Options
    public static let withTime: Foundation.ISO8601DateFormatter.Options
    public static let withTimeZone: Foundation.ISO8601DateFormatter.Options
    public static let withSpaceBetweenDateAndTime: Foundation.ISO8601DateFormatter.Options
    public static let withDashSeparatorInDate: Foundation.ISO8601DateFormatter.Options
    public static let withColonSeparatorInTime: Foundation.ISO8601DateFormatter.Options
    public static let withColonSeparatorInTimeZone: Foundation.ISO8601DateFormatter.Options
    $AVAIL_1013
    public static let withFractionalSeconds: Foundation.ISO8601DateFormatter.Options
    public static let withFullDate: Foundation.ISO8601DateFormatter.Options
    public static let withFullTime: Foundation.ISO8601DateFormatter.Options
    public static let withInternetDateTime: Foundation.ISO8601DateFormatter.Options
    public typealias ArrayLiteralElement = Foundation.ISO8601DateFormatter.Options
    public typealias Element = Foundation.ISO8601DateFormatter.Options
    public typealias RawValue = Swift.UInt
  }
  open var formatOptions: Foundation.ISO8601DateFormatter.Options
  public override init()
  open func string(from date: Foundation.Date) -> Swift.String
  open func date(from string: Swift.String) -> Foundation.Date?
}
EOF
}

stub_XCTest() {
cat <<'EOF'
// Stand-in for XCTest: SwiftPM on macOS (and Xcode for packages) lets library targets import
// XCTest from the platform's Developer/Library/Frameworks; only its entry points that a test
// helper library calls are declared.
import Swift
import Foundation
open class XCTestCase : Foundation.NSObject {
  public override init()
  open func setUp()
  open func tearDown()
}
public func XCTFail(_ message: Swift.String = "", file: Swift.StaticString = #filePath, line: Swift.UInt = #line)
public func XCTAssert(_ expression: @autoclosure () throws -> Swift.Bool, _ message: @autoclosure () -> Swift.String = "", file: Swift.StaticString = #filePath, line: Swift.UInt = #line)
public func XCTAssertTrue(_ expression: @autoclosure () throws -> Swift.Bool, _ message: @autoclosure () -> Swift.String = "", file: Swift.StaticString = #filePath, line: Swift.UInt = #line)
public func XCTAssertEqual<T>(_ expression1: @autoclosure () throws -> T, _ expression2: @autoclosure () throws -> T, _ message: @autoclosure () -> Swift.String = "", file: Swift.StaticString = #filePath, line: Swift.UInt = #line) where T : Swift.Equatable
EOF
}

iface_header() { # MODULE TRIPLE
  echo "// swift-interface-format-version: 1.0"
  echo "$COMPILER_VERSION_LINE"   # the loader rejects an interface from another compiler
  echo "// swift-module-flags: -target $2 -enable-library-evolution -swift-version 5 -disable-objc-interop -module-name $1"
}

# ---------------------------------------------------------------------------------------------
# 4. Assemble each SDK.
# ---------------------------------------------------------------------------------------------
STUBS="Darwin Dispatch Foundation XCTest"
COMPILER_VERSION_LINE=$(sed -n 2p "$HOSTIF")
case $COMPILER_VERSION_LINE in "// swift-compiler-version:"*) ;; *) echo "make-standin-sdk: unexpected $HOSTIF" >&2; exit 1 ;; esac
TMPSTUB=$(mktemp -d)
trap 'rm -rf "$TMPSTUB"' EXIT
for s in $STUBS; do "stub_$s" > "$TMPSTUB/$s.body"; done

XROS_IOS="1.0=17.1 1.1=17.4 1.2=17.5 2.0=18.0 2.1=18.1 2.2=18.2 2.3=18.3 2.4=18.4 2.5=18.5 2.6=18.6 26.0=26.0"
sdkjson() { # SDKNAME OS PLATFORM
  local map="" fwd="" back="" kv
  if [ "$2" = xros ]; then
    for kv in $XROS_IOS; do fwd+="${fwd:+, }\"${kv%%=*}\": \"${kv#*=}\""; back+="${back:+, }\"${kv#*=}\": \"${kv%%=*}\""; done
    map=", \"VersionMap\": {\"visionOS_iOS\": {$fwd}, \"xrOS_iOS\": {$fwd}, \"iOS_visionOS\": {$back}, \"iOS_xrOS\": {$back}}"
  fi
  # "Version" stays below Xcode 16's SDKs (macOS 15, iOS/tvOS 18, watchOS 11, visionOS 2): from
  # those on, Swift 6.3 expects the SDK to bring the SwiftShims module itself and stops finding
  # the toolchain's ("no such module 'SwiftShims'"). MaximumDeploymentTarget admits any target.
  local v
  case $2 in macos) v=14.5 ;; ios|tvos) v=17.5 ;; watchos) v=10.5 ;; xros) v=1.2 ;; esac
  echo "{\"CanonicalName\": \"${3}$v\", \"DisplayName\": \"$1 $v stand-in (apple-kit)\", \"Version\": \"$v\", \"MaximumDeploymentTarget\": \"26.0.99\"$map}"
}

# Each SDK is written to a staging directory and then copied over the old one file by file,
# only where a file changed: the module cache keys on the interfaces' modification times, so
# running this again (another platform, a newer kit) keeps what was already built.
sync_tree() { # STAGE DEST
  (cd "$1" && find . -type f) | while read -r f; do
    cmp -s "$1/$f" "$2/$f" || { mkdir -p "$(dirname "$2/$f")"; cp "$1/$f" "$2/$f"; }
  done
  (cd "$2" && find . -type f) | while read -r f; do [ -e "$1/$f" ] || rm -f "$2/$f"; done
}
for p in $PLATFORMS; do
  read -r sdkname os env archs mindep <<<"$(plat_info "$p")"
  SDK=$TMPSTUB/stage/$sdkname.sdk
  mkdir -p "$SDK/usr/lib/swift" "$SDK/System/Library/Frameworks" "$OUT/$sdkname.sdk/System/Library/Frameworks"
  write_c_headers "$SDK/usr/include"
  # SDKSettings.json: clang and Swift read the SDK version from it and, for visionOS, the
  # visionOS <-> iOS version map that makes iOS-only @available attributes apply to
  # visionOS (visionOS 1.0 = iOS 17.1 ... as in Xcode's XROS SDKs).
  sdkjson "$sdkname" "$os" "$p" > "$SDK/SDKSettings.json"
  suffix=""; [ "$env" = simulator ] && suffix="-simulator"
  for arch in ${archs//,/ }; do
    mtriple=$arch-apple-$os$suffix           # file name the loader looks for
    ttriple=$arch-apple-$os$mindep$suffix     # -target inside the interface
    for m in $DERIVED; do
      src=$LINUX/$m.swiftmodule/$HOSTTRIPLE.swiftinterface
      [ -f "$src" ] || { echo "make-standin-sdk: note: $src missing, $m skipped" >&2; continue; }
      mkdir -p "$SDK/usr/lib/swift/$m.swiftmodule"
      derive_interface "$m" "$src" "$SDK/usr/lib/swift/$m.swiftmodule/$mtriple.swiftinterface" "$ttriple"
    done
    for s in $STUBS; do
      mkdir -p "$SDK/usr/lib/swift/$s.swiftmodule"
      { iface_header "$s" "$ttriple"; cat "$TMPSTUB/$s.body"; } > "$SDK/usr/lib/swift/$s.swiftmodule/$mtriple.swiftinterface"
    done
  done
  sync_tree "$SDK" "$OUT/$sdkname.sdk"
done
SWIFTVER=$("$SWIFT_FRONTEND" -version 2>/dev/null | head -1)
{ echo "toolchain=$USR"; echo "swift=$SWIFTVER"; echo "host=$HOSTTRIPLE"; echo "platforms=$PLATFORMS"; } > "$OUT/standin-sdk.info"
mkdir -p "$OUT/ModuleCache"
echo "make-standin-sdk: wrote $(cd "$OUT" && ls -d *.sdk | tr '\n' ' ')in $OUT ($(du -sh "$OUT" | cut -f1)) from $SWIFTVER"

# ---------------------------------------------------------------------------------------------
# 5. Optional: build (and so validate) the modules for some triples now, in parallel, into
#    OUTDIR/ModuleCache, which apple-typecheck.sh reuses.
# ---------------------------------------------------------------------------------------------
if [ ${#WARM[@]} -gt 0 ]; then
  KIT=$(dirname "$(readlink -f "$0")")
  warm_one() {
    local t=$1 sdk
    sdk=$("$KIT/apple-typecheck.sh" --sdk-for "$OUT" "$t") || return 1
    local f; f=$(mktemp -d)/warm.swift
    printf 'import Swift\nimport _Concurrency\nimport Observation\nimport Dispatch\nimport Foundation\nimport Darwin\nimport Testing\nimport XCTest\nimport Synchronization\n' > "$f"
    if "$SWIFT_FRONTEND" -typecheck -target "$t" -sdk "$sdk" -module-cache-path "$OUT/ModuleCache" \
         -disable-objc-interop -module-name Warm -swift-version 6 \
         -plugin-path "$USR/lib/swift/host/plugins" -plugin-path "$USR/lib/swift/host/plugins/testing" \
         "$f" > "$f.log" 2>&1; then
      echo "make-standin-sdk: warm $t: ok"
    else
      echo "make-standin-sdk: warm $t: FAILED"; sed 's/^/  /' "$f.log" | head -40; return 1
    fi
  }
  export -f warm_one
  export KIT OUT SWIFT_FRONTEND USR
  # One lock for the batch: its compiles use the machine's cores together.
  locked bash -c 's=$(date +%s.%N); rc=0; printf "%s\n" "$@" | xargs -P '"$JOBS"' -I{} bash -c "warm_one {}" || rc=1
    echo "make-standin-sdk: warmed $# triple(s) in $(awk -v a="$s" -v b="$(date +%s.%N)" "BEGIN { printf \"%.1f\", b - a }") s ('"$JOBS"' at a time)"; exit $rc' _ "${WARM[@]}"
fi
