module jobcheck.example/starter

go 1.19
