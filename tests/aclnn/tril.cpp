// aclnnTril / aclnnInplaceTril / aclnnTriu / aclnnInplaceTriu in the style
// of CANN's sample: a 3x3 int32 tensor, Tril into out and then in place on
// self (CANN's sample, diagonal 0); Triu with diagonal 1 into a transposed
// out; InplaceTriu on a transposed float view (through the workspace);
// and the first phase's rules (docs/ops.md §15).
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_tril.h"
#include "aclnnop/aclnn_triu.h"
#include "common.h"

typedef aclnnStatus (*Run)(void*, uint64_t, aclOpExecutor*, aclrtStream);

// The first phase's status is taken before the call, so its outputs are
// read only after it ran.
static int Launch(aclnnStatus first, const uint64_t& workspaceSize, aclOpExecutor* const& executor, Run run,
                  aclrtStream stream, const char* name)
{
    CHECK_RET(first == ACL_SUCCESS, LOG_PRINT("%sGetWorkspaceSize failed. ERROR: %d\n", name, first); return first);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        auto ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    auto ret = run(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("%s failed. ERROR: %d\n", name, ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    return 0;
}

template <typename T>
static int Expect(void* deviceAddr, const std::vector<T>& want, const char* what)
{
    std::vector<T> got(want.size(), 0);
    auto ret = ReadBack(deviceAddr, got);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    for (size_t i = 0; i < want.size(); i++) {
        LOG_PRINT("%s[%zu] is: %g\n", what, i, (double)got[i]);
        CHECK_RET(got[i] == want[i], LOG_PRINT("%s[%zu] should be %g\n", what, i, (double)want[i]); return 1);
    }
    return 0;
}

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    // 1. CANN's sample: Tril into out, then InplaceTril on self.
    std::vector<int64_t> shape = {3, 3};
    void *selfDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *out = nullptr;
    std::vector<int32_t> selfHostData = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    std::vector<int32_t> outHostData = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    ret = CreateAclTensor(selfHostData, shape, &selfDeviceAddr, aclDataType::ACL_INT32, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, shape, &outDeviceAddr, aclDataType::ACL_INT32, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = Launch(aclnnTrilGetWorkspaceSize(self, 0, out, &workspaceSize, &executor), workspaceSize, executor,
                 aclnnTril, stream, "aclnnTril");
    CHECK_RET(ret == 0, return ret);
    const std::vector<int32_t> lower = {1, 0, 0, 4, 5, 0, 7, 8, 9};
    CHECK_RET(Expect(outDeviceAddr, lower, "result") == 0, return 1);
    ret = Launch(aclnnInplaceTrilGetWorkspaceSize(self, 0, &workspaceSize, &executor), workspaceSize, executor,
                 aclnnInplaceTril, stream, "aclnnInplaceTril");
    CHECK_RET(ret == 0, return ret);
    CHECK_RET(Expect(selfDeviceAddr, lower, "inplaceResult") == 0, return 1);

    // 2. Triu (diagonal 1) of the 1..9 matrix into a transposed view of out.
    aclrtMemcpy(selfDeviceAddr, 36, selfHostData.data(), 36, ACL_MEMCPY_HOST_TO_DEVICE);
    std::vector<int64_t> tStrides = {1, 3}, storage = {9};
    aclTensor* outT = aclCreateTensor(shape.data(), shape.size(), aclDataType::ACL_INT32, tStrides.data(), 0,
                                      aclFormat::ACL_FORMAT_ND, storage.data(), storage.size(), outDeviceAddr);
    ret = Launch(aclnnTriuGetWorkspaceSize(self, 1, outT, &workspaceSize, &executor), workspaceSize, executor,
                 aclnnTriu, stream, "aclnnTriu");
    CHECK_RET(ret == 0, return ret);
    // out^T = triu(x, 1) = [[0,2,3],[0,0,6],[0,0,0]], so out = its transpose.
    CHECK_RET(Expect(outDeviceAddr, std::vector<int32_t>{0, 0, 0, 2, 0, 0, 3, 6, 0}, "triu") == 0, return 1);

    // 3. InplaceTriu on a transposed 2x3 float view of a 3x2 buffer.
    std::vector<int64_t> fShape = {3, 2};
    std::vector<float> fHost = {1, 2, 3, 4, 5, 6};
    void* fDeviceAddr = nullptr;
    aclTensor* f = nullptr;
    ret = CreateAclTensor(fHost, fShape, &fDeviceAddr, aclDataType::ACL_FLOAT, &f);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int64_t> vShape = {2, 3}, vStrides = {1, 2}, vStorage = {6};
    aclTensor* fT = aclCreateTensor(vShape.data(), vShape.size(), aclDataType::ACL_FLOAT, vStrides.data(), 0,
                                    aclFormat::ACL_FORMAT_ND, vStorage.data(), vStorage.size(), fDeviceAddr);
    ret = Launch(aclnnInplaceTriuGetWorkspaceSize(fT, 0, &workspaceSize, &executor), workspaceSize, executor,
                 aclnnInplaceTriu, stream, "aclnnInplaceTriu");
    CHECK_RET(ret == 0, return ret);
    // The view [[1,3,5],[2,4,6]] becomes [[1,3,5],[0,4,6]]: element (1,0)
    // lies at buffer index 1.
    CHECK_RET(Expect(fDeviceAddr, std::vector<float>{1, 0, 3, 4, 5, 6}, "inplaceTriu") == 0, return 1);

    // 4. The first phase's rules.
    aclOpExecutor* unused = nullptr;
    std::vector<int64_t> vec = {9};
    aclTensor* flat = aclCreateTensor(vec.data(), vec.size(), aclDataType::ACL_INT32, nullptr, 0,
                                      aclFormat::ACL_FORMAT_ND, vec.data(), vec.size(), selfDeviceAddr);
    ret = aclnnTrilGetWorkspaceSize(flat, 0, flat, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("rank 1: %d\n", ret); return 1);
    ret = aclnnTriuGetWorkspaceSize(self, 0, f, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("int32 into float: %d\n", ret); return 1);
    ret = aclnnInplaceTrilGetWorkspaceSize(nullptr, 0, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null selfRef: %d\n", ret); return 1);
    ret = aclnnTrilGetWorkspaceSize(self, 0, out, nullptr, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null workspaceSize: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyTensor(outT);
    aclDestroyTensor(f);
    aclDestroyTensor(fT);
    aclDestroyTensor(flat);
    aclrtFree(selfDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(fDeviceAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("tril: ok\n");
    return 0;
}
