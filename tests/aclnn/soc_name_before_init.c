/* aclrtGetSocName before aclInit, as CANN's sample build setup uses it: a
   tiny program run at configure time prints the SoC name, which becomes
   SOC_VERSION (that setup stops with "Failed to get SOC_VERSION by
   aclrtGetSocName" when it returns NULL). Prints the name on the first
   line; then checks that an initialisation and a finalisation keep it, and
   ends with "soc_name: ok". C11. */
#include <stdio.h>
#include <string.h>
#include "acl/acl.h"

int main(void)
{
    const char *before = aclrtGetSocName();
    if (before == NULL) {
        printf("Failed to get SOC_VERSION by aclrtGetSocName: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    printf("%s\n", before);
    char name[64];
    snprintf(name, sizeof name, "%s", before);

    if (aclInit(NULL) != ACL_SUCCESS) {
        printf("aclInit failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    const char *during = aclrtGetSocName();
    if (during == NULL || strcmp(during, name) != 0) {
        printf("after aclInit the SoC is %s, not %s\n", during ? during : "(null)", name);
        return 1;
    }
    if (aclFinalize() != ACL_SUCCESS) {
        printf("aclFinalize failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    const char *after = aclrtGetSocName();
    if (after == NULL || strcmp(after, name) != 0 || strcmp(before, name) != 0) {
        printf("after aclFinalize the SoC is %s, not %s\n", after ? after : "(null)", name);
        return 1;
    }
    printf("soc_name: ok\n");
    return 0;
}
