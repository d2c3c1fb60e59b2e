#include "onepath/common.h"
#include <stdio.h>
int main(int argc, char **argv) { (void)argc; (void)argv; puts("onepath: not yet"); return 0; }
