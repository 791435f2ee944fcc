from pbem.entry import main

main()
