/* Past aclrtMalloc's padding: a 16-byte allocation is 64 bytes on the
   device (rounded up to 32, plus 32), so a 64-byte copy back works and a
   65-byte one fails with ACL_ERROR_RT_PARAM_INVALID (107000), explained in
   the runtime's format (Invalid_Argument(EE1001)). Ends with
   "padding_overrun: ok". C11. */
#include <stdio.h>
#include <string.h>
#include "acl/acl.h"

int main(void)
{
    unsigned char host[65];
    void *dev = NULL;
    memset(host, 7, sizeof host);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtMalloc(&dev, 16, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        printf("init failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    if (aclrtMemcpy(dev, 16, host, 16, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) {
        printf("upload failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    aclError ret = aclrtMemcpy(host, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST);
    if (ret != ACL_SUCCESS) {
        printf("64 bytes back from 16 (inside the padding): %d, want 0\n%s\n", ret, aclGetRecentErrMsg());
        return 1;
    }
    ret = aclrtMemcpy(host, sizeof host, dev, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST);
    if (ret != ACL_ERROR_RT_PARAM_INVALID) {
        printf("65 bytes back from 16 (past the padding): %d, want %d\n", ret, ACL_ERROR_RT_PARAM_INVALID);
        return 1;
    }
    const char *msg = aclGetRecentErrMsg();
    if (msg == NULL || strncmp(msg, "Invalid_Argument(EE1001): ", 26) != 0 ||
        strstr(msg, "runs past the end") == NULL) {
        printf("unexpected message: %s\n", msg ? msg : "(null)");
        return 1;
    }
    printf("%d: %s\n", ret, msg);
    aclrtFree(dev);
    aclrtResetDevice(0);
    aclFinalize();
    printf("padding_overrun: ok\n");
    return 0;
}
